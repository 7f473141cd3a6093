import { z } from 'zod';
import { done, defineAction } from '../action.js';

const DEFAULT_HOURS = 4;
/** A snooze longer than a week hides a real problem for too long. */
const MAX_HOURS = 168;

/** Digests, alert triage and watch incidents skip the cluster for N hours (read with createIsSnoozed). */
export const snooze = defineAction({
  id: 'snooze',
  label: 'Snooze',
  access: 'responders',
  sideEffects: [
    'etcd-doctor state in Redis: the cluster is left out of digests, alert triage and watch incidents for N hours',
  ],
  // It silences the cluster's digests, alert triage and watch for hours: a person confirms it (issue 42).
  needsConfirmation: true,
  argsSchema: z.object({
    hours: z
      .string()
      .regex(/^\d{1,3}$/)
      .refine((h) => Number(h) >= 1 && Number(h) <= MAX_HOURS, { error: `hours must be 1..${MAX_HOURS}` })
      .optional(),
  }),
  describe(args, s) {
    return [
      `Snooze ${s.cluster} for ${args.hours ?? DEFAULT_HOURS} h: its digests, alert triage and watch incidents leave it out until then, whatever happens to it.`,
    ];
  },
  async run(args, ctx) {
    const hours = Number(args.hours ?? DEFAULT_HOURS);
    const untilMs = ctx.now() + hours * 3_600_000;
    await ctx.safePoint(`snoozing ${ctx.cluster.name}`);
    if (!ctx.dryRun) await ctx.state.snooze(ctx.cluster.name, untilMs, ctx.user);
    const until = new Date(untilMs).toISOString().slice(0, 16).replace('T', ' ');
    return done(
      `${ctx.dryRun ? 'would snooze' : 'snoozed'} ${ctx.cluster.name} for ${hours} h (until ${until} UTC): digests, alert triage and watch incidents skip it`,
    );
  },
});
