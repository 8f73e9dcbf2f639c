import { Type } from 'typebox';
import { defineJob, STANDARD_RETRY } from '../../platform/jobs/define.ts';
import { utcDate } from '../../shared/dates.ts';
import type { ReminderService } from '../reminders.ts';

/** Every integrator's rent reminders due today (UTC), for those with reminders on. Hourly; each is sent once. */
export const rentRemindersJob = defineJob({
  kind: 'ledger.reminders',
  summary: 'Sends the rent reminders due today (rent_reminder webhooks), each once',
  payload: Type.Object({}),
  retry: STANDARD_RETRY,
  every: { ms: 60 * 60_000, payload: () => ({}) },
  run: (reminders: Pick<ReminderService, 'run'>) => async (_payload, ctx) => {
    const today = utcDate(ctx.clock.now());
    const sent = await reminders.run(today);
    if (sent > 0) ctx.log.info({ sent, as_of: today }, 'rent reminders sent');
  },
});
