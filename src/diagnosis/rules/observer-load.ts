import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { assessVantage } from '../vantage.js';

/**
 * etcd-doctor's own event loop was stalled while it probed (probes/observer-load.ts): every
 * round trip and read time it measured includes that stall. The latency rules (cpu-starvation,
 * slow-reads, peer round trips) were not evaluated rather than blame healthy members; this says
 * so, as information about our own view (a digest of 200 clusters on a busy worker).
 */
export const observerLoadRule: Rule = {
  name: 'observer-load',
  live: "etcd-doctor's own load while it probes",
  cause: 'observer-load',
  needs: [],
  rank: 92,
  scope: 'vantage',
  evaluate(evidence, ctx) {
    const { observer } = ctx.vantage ?? assessVantage(evidence);
    const load = observer.load;
    const explain = [
      load
        ? `event loop delay p99 ${load.loopDelayP99Ms} ms, max ${load.loopDelayMaxMs} ms over ${load.windowMs} ms; ${load.concurrentRuns} runs at once`
        : 'no observer measurement',
    ];
    if (!observer.distortion) return { explain };
    const finding: Finding = {
      cause: 'observer-load',
      severity: 'info',
      members: [],
      nodes: [],
      summary:
        'etcd-doctor itself was too busy while it probed to trust the latencies it timed: cpu-starvation, slow reads and peer round trips were not evaluated',
      evidence: [observer.distortion],
      steps: [
        { text: 'Run the diagnosis again when etcd-doctor is less busy', action: 'rerun' },
        {
          text: 'Give the worker more CPU, or more worker processes on the same Redis; a digest can also run fewer clusters at once (digest.concurrency)',
        },
      ],
      unknowns: ['whether any member is starved of CPU or answers reads slowly'],
    };
    return { finding, explain };
  },
};
