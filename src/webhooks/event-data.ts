import { Type } from 'typebox';

/** Whom an event about a tenant's payment or schedule names, as fields of its `data`. */
export const EVENT_TENANT_FIELDS = {
  user_id: Type.Integer({ description: 'Your user_id of the tenant.' }),
  email: Type.String(),
  payment_reference: Type.String({ description: 'The tenancy’s payment_reference.' }),
};

export const PingEventData = Type.Object({ integrator_id: Type.String() }, { title: 'PingEventData' });
