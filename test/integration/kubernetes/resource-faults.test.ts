import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { etcdPart, KUBEADM_MEMBERS, useScenario, withKubernetes } from '../../support/kube/kube-evidence.js';

/**
 * What only the Kubernetes API shows of a member that ran out of something, as a live diagnosis
 * reads it through the (fake) apiserver: an etcd container's last state (`OOMKilled`, exit code 137;
 * a termination message with `too many open files`) and its previous container's log. The members
 * answer now: the finding is about what stopped them.
 */
describe('out-of-memory from the Pod: the etcd container was OOMKilled', () => {
  const run = useScenario('oom-killed');

  it("names master-2 and its node from the container's last state, with nothing in its log", () => {
    const result = diagnose(withKubernetes(etcdPart(KUBEADM_MEMBERS), run.kubernetes), rules, {
      now: run.now,
    });
    const [first] = result.findings;
    expect(first).toMatchObject({
      cause: 'out-of-memory',
      severity: 'critical',
      members: ['master-2'],
      nodes: ['master-2'],
    });
    expect(first?.summary).toBe(
      'master-2 ran out of memory (the etcd container was OOMKilled): the member stops, and replaying its WAL at the restart needs the same memory again',
    );
    expect(first?.evidence).toContain(
      "etcd-master-2's etcd container last exited OOMKilled (exit code 137) at 2024-05-14T09:21:02.000Z, 4 restarts",
    );
  });
});

describe('fd-exhaustion from the Pod and its previous log', () => {
  const run = useScenario('fd-exhaustion');

  it('names master-1 from its previous container: the 80 % warnings, the refused dials, the exit message', () => {
    const result = diagnose(withKubernetes(etcdPart(KUBEADM_MEMBERS), run.kubernetes), rules, {
      now: run.now,
    });
    const [first] = result.findings;
    expect(first).toMatchObject({ cause: 'fd-exhaustion', severity: 'critical', members: ['master-1'] });
    expect(first?.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^master-1: 3 × too many open files, 09:12:31–09:12:40$/),
        "etcd's last count: master-1: 61870 of 65536 in use",
        expect.stringMatching(
          /^etcd-master-1's etcd container last exited Error \(exit code 1\) at 2024-05-14T09:12:40\.000Z, 1 restart: .*too many open files/,
        ),
      ]),
    );
    // master-1's failed dials never left its node: master-2 and master-3 are not blamed.
    expect(result.findings.map((f) => f.cause)).not.toContain('peer-network');
  });
});
