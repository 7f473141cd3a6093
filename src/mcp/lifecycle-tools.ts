import { readFile } from 'node:fs/promises';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import { checkUpgrade } from '../lifecycle/gather-upgrade.js';
import { upgradeLines } from '../lifecycle/render-upgrade.js';
import { recoveryPlanFor } from '../lifecycle/gather-recovery.js';
import { recoveryLines } from '../lifecycle/render-recovery.js';
import type { Logger } from '../logger.js';
import { READ_ONLY } from './cluster-tools.js';
import { healthInput, recoverOutput, upgradeCheckInput, upgradeCheckOutput } from './schemas.js';
import { runTool, structuredResult, toolError } from './tool-result.js';

/** etcd_upgrade_check and etcd_recover: the CLI's --json for a model (src/lifecycle/). */
export function registerLifecycleTools(
  server: McpServer,
  deps: { doctor: Doctor; config: ConfigFile; logger: Logger },
): void {
  const known = deps.config.clusters.map((c) => c.name);
  server.registerTool(
    'etcd_upgrade_check',
    {
      title: 'Can etcd be upgraded',
      description: [
        'Whether one etcd cluster can be upgraded to an etcd minor now, and what blocks it, each blocker with its members and its fix.',
        "Checks, from etcd's upgrade guides: one minor at a time, every member at the patch the target requires, v2 store data (the v2 API and --enable-v2; the offline `etcdutl check v2store` per member), flags the target removes, learners against --max-learners, the failure margin, a verified backup within backups.maxAgeHours, mixed minors, and kubeadm's etcd for its Kubernetes version.",
        'It runs a diagnosis (seconds). Read-only: it upgrades nothing.',
      ].join(' '),
      inputSchema: upgradeCheckInput(known),
      outputSchema: upgradeCheckOutput,
      annotations: { ...READ_ONLY, title: 'Can etcd be upgraded' },
    },
    (args, extra) =>
      runTool('etcd_upgrade_check', extra, deps.logger, async () => {
        const readFileBuffer = (p: string) => readFile(p);
        const out = await checkUpgrade(
          { doctor: deps.doctor, config: deps.config, readFileBuffer },
          args.cluster,
          args.target,
          extra.signal,
        );
        if (!out.result)
          return toolError(
            `could not check ${args.cluster}: no member answered Status (etcd_health says why)`,
          );
        return structuredResult(upgradeLines(out.result).join('\n'), out.result);
      }),
  );
  server.registerTool(
    'etcd_recover',
    {
      title: 'Plan to get quorum back',
      description: [
        'After quorum loss: which member to restore from and why (each reachable member’s revision, raft term, index and applied index; the newest verified backup), what each other choice loses, and the steps for the distribution detected (systemd or kubeadm: --force-new-cluster on the chosen member, the others back as learners; OpenShift: its quorum restore; no member with data: etcdutl snapshot restore).',
        'Read-only: nothing is run; the steps are for a person. A cluster that has quorum gets an error saying to diagnose it instead.',
      ].join(' '),
      inputSchema: healthInput(known),
      outputSchema: recoverOutput,
      annotations: { ...READ_ONLY, title: 'Plan to get quorum back' },
    },
    (args, extra) =>
      runTool('etcd_recover', extra, deps.logger, async () => {
        const out = await recoveryPlanFor({ doctor: deps.doctor }, args.cluster, extra.signal);
        if (out.kind !== 'plan') return toolError(out.line);
        return structuredResult(recoveryLines(out.plan).join('\n'), out.plan);
      }),
  );
}
