import { Type } from 'typebox';
import type { DashboardUser } from '../people/service.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import { RoleSchema } from './schemas.ts';

export const TeamMember = Type.Object(
  {
    id: Type.String({ description: 'dus_…' }),
    email: Type.String(),
    role: RoleSchema,
    status: Type.Enum(['invited', 'active', 'removed'], {
      description: '`invited` until they set up their sign-in.',
    }),
    created_at: Timestamp,
  },
  { title: 'TeamMember' },
);

export function teamMemberView(user: DashboardUser) {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    status: user.status,
    created_at: user.created_at.toISOString(),
  };
}

export const PersonParams = Type.Object({
  user_id: Type.String({ pattern: '^dus_[A-Za-z0-9]+$', maxLength: 64, description: 'dus_…' }),
});
