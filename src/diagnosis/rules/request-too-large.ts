import { formatBytes, formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import { explainLines, type Rule } from '../rule.js';
import { nodesOfMembers, plural } from '../support/kubernetes.js';
import { memberLoads, podSpecOf } from '../support/load.js';

/** etcd's default --max-request-bytes: 1.5 MiB (ETCD34/35 embed/config.go DefaultMaxRequestBytes). */
export const DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/**
 * Writes refused for size (issue 39): etcd answers a request larger than --max-request-bytes with
 * `etcdserver: request is too large`, gRPC code InvalidArgument (v3rpc/rpctypes ErrGRPCRequestTooLarge),
 * counted in `grpc_server_handled_total{grpc_code="InvalidArgument",grpc_method="Put"}` (and Txn,
 * which carries the apiserver's writes). Any such refusal inside the /metrics window fires. The
 * same code also answers an empty key or a Txn with duplicate keys (rpctypes), so the finding says
 * "most likely". A client's write failed, etcd itself is fine: never critical.
 */
export const requestTooLargeRule: Rule = {
  name: 'request-too-large',
  live: 'two /metrics scrapes now',
  cause: 'request-too-large',
  needs: ['metrics'],
  rank: 70,
  evaluate(evidence, ctx) {
    const loads = memberLoads(evidence).filter((l) => l.rates?.refusedWrites !== undefined);
    const explain = explainLines(ctx, () =>
      loads.map(
        (l) => `${l.name}: ${l.rates?.refusedWrites ?? 0} writes refused as invalid in ${l.windowSeconds} s`,
      ),
    );
    const refused = loads
      .filter((l) => (l.rates?.refusedWrites ?? 0) > 0)
      .sort((a, b) => (b.rates?.refusedWrites ?? 0) - (a.rates?.refusedWrites ?? 0));
    if (refused.length === 0) return { explain };
    const names = refused.map((l) => l.name);
    const limits = refused.map((l) => {
      const flag = podSpecOf(evidence, l.name)?.maxRequestBytes;
      return flag !== undefined
        ? `${l.name}: --max-request-bytes ${formatBytes(flag, 'binary')} (from its pod spec)`
        : `${l.name}: ${formatBytes(DEFAULT_MAX_REQUEST_BYTES, 'binary')}, etcd's default${evidence.kubernetes?.ok ? ' (no --max-request-bytes in its pod spec)' : ' (its flags are not known here)'}`;
    });
    const total = refused.reduce((n, l) => n + (l.rates?.refusedWrites ?? 0), 0);
    const window = refused[0]?.windowSeconds ?? 0;
    const finding: Finding = {
      cause: 'request-too-large',
      severity: 'warning',
      members: names,
      nodes: nodesOfMembers(evidence, names),
      summary: `${formatList(names)} refused ${plural(total, 'write')} in ${window} s, most likely too large (etcdserver: request is too large): a client's writes fail, etcd itself is fine`,
      evidence: [
        ...refused.map(
          (l) =>
            `${l.name}: ${plural(l.rates?.refusedWrites ?? 0, 'Put or Txn request')} answered InvalidArgument in ${l.windowSeconds} s (grpc_server_handled_total)`,
        ),
        `the limit: ${limits.join('; ')}`,
      ],
      steps: [
        {
          text: 'Find the writer and the object: the client logs `etcdserver: request is too large`; with Kubernetes the apiserver logs it with the resource (a ConfigMap, Secret or CRD object near 1.5 MiB, often a Helm release or a large annotation)',
        },
        {
          text: 'Make the object smaller (split it, move data out of annotations); raise --max-request-bytes on every member only with care: large requests slow every member and the raft log (etcd docs, configuration "--max-request-bytes")',
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)}`] };
  },
};
