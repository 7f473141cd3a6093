import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MemoryMessage } from '../../../src/chat/memory/memory-adapter.js';
import type { TextView, ViewButton } from '../../../src/report/chat-view.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import {
  ALICE,
  type Harness,
  labCluster,
  startHarness,
  textOf,
} from '../../support/chat/remediation-harness.js';

const RAN = /ran .*: (finished|refused|failed) in/;
/** Nothing listens here (the discard port): the client URL etcd-3 advertises leads nowhere. */
const DEAD_CLIENT_URL = 'http://127.0.0.1:9';

/**
 * Issue 38 L4: replace-member took "unreachable from the worker" as lost. Here etcd-3 runs and its
 * peers talk to it, but the client URL it advertises (the member list's, which etcd-doctor dials)
 * leads nowhere: a firewall or a wrong URL between the worker and one member, not a lost member.
 * Its peers' view (etcd_network_active_peers on etcd-1 and etcd-2) says it runs, so the replace is
 * refused and the member list is untouched; before, etcd-3 was removed (and, running, it exited).
 */
describe('replace-member on a member only etcd-doctor cannot reach', () => {
  let lab: EtcdLab;
  let h: Harness;

  beforeAll(async () => {
    lab = await startEtcdLab({
      // etcd takes the last of a repeated flag: etcd-3 listens where the lab says and advertises the dead URL.
      wrap: (member) =>
        member === 'etcd-3'
          ? ['/bin/sh', '-c', `exec "$@" --advertise-client-urls ${DEAD_CLIENT_URL}`, 'sh']
          : undefined,
    });
    h = await startHarness([labCluster(lab, { remediation: { responders: [ALICE] } })], 'rem-second-view', {
      settings: { learnerStartWaitMs: 5000, learnerCatchUpWaitMs: 5000, learnerPollMs: 250 },
      probeTimeoutMs: 3000,
    });
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await lab?.destroy();
  });

  const outcomes = (): MemoryMessage[] => h.chat.messages.filter((m) => RAN.test(m.text));
  const memberList = async () => {
    const res = await lab.etcdctl(['member', 'list', '-w', 'json']);
    return (
      JSON.parse(res.stdout) as {
        members: Array<{ name?: string; isLearner?: boolean; clientURLs?: string[] }>;
      }
    ).members;
  };

  it('is refused on its peers\u2019 view, and the member list keeps all three voters', async () => {
    expect((await memberList()).find((m) => m.name === 'etcd-3')?.clientURLs).toEqual([DEAD_CLIENT_URL]);
    const anchor = await h.anchor();
    const [confirm] = await h.chat.click(anchor, await h.button('replace-member', { member: 'etcd-3' }), {
      user: ALICE,
    });
    const runIt = (confirm as TextView).buttons?.find((b: ViewButton) =>
      /promote when caught up/.test(b.label),
    );
    if (!runIt) throw new Error(`no Run it button in: ${textOf(confirm)}`);
    await h.chat.click(anchor, runIt, { user: ALICE });
    await h.chat.waitFor(() => outcomes().length >= 1, 60_000);

    const done = outcomes()[0]?.text ?? '';
    expect(done).toMatch(/refused in/);
    expect(done).toMatch(
      /refusing to replace etcd-3: etcd-doctor cannot reach it \(http:\/\/127\.0\.0\.1:9\), but etcd-1, etcd-2 have an active peer connection to it now \(etcd_network_active_peers\): it is running/,
    );
    const members = await memberList();
    expect(members.map((m) => m.name).sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(members.every((m) => !m.isLearner)).toBe(true);
    expect(h.chat.messages.some((m) => /removed etcd-3/.test(m.text))).toBe(false);
  }, 120_000);
});
