import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { activeConnection, peerViewRefusal } from '../../../src/remediation/actions/peer-view.js';

/**
 * replace-member's second view (issue 38 L4), on /metrics pages real etcd 3.4.23 members wrote: the
 * leader of a 3-member lab with all peers up, and the same leader after one peer was killed.
 */
const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/metrics/${name}`, import.meta.url), 'utf8');
const LEADER = 'b54f6c492013722c';
const KILLED = '8121bc5146ad3713';
const UP = '5a4d3e894f5892eb';

describe('etcd_network_active_peers as the second view', () => {
  it('a killed peer: its stream is down; the running one is active', () => {
    const page = fixture('etcd-3.4.23-3member-leader-peer-down.txt');
    expect(activeConnection(page, LEADER, KILLED)).toBe(false);
    expect(activeConnection(page, LEADER, UP)).toBe(true);
  });

  it('all peers up: both are active; another member id is not', () => {
    const page = fixture('etcd-3.4.23-3member-leader.txt');
    expect(activeConnection(page, LEADER, UP)).toBe(true);
    expect(activeConnection(page, LEADER, 'ffffffffffffffff')).toBe(false);
  });

  it('refuses while a peer is connected, or when no other member could be asked; agrees when peers lost it too', () => {
    expect(
      peerViewRefusal('etcd-3', 'http://10.0.0.3:2379', {
        seenBy: ['etcd-1'],
        notSeenBy: ['etcd-2'],
        unasked: [],
      }),
    ).toMatch(
      /^refusing to replace etcd-3: etcd-doctor cannot reach it \(http:\/\/10\.0\.0\.3:2379\), but etcd-1 has an active peer connection to it now/,
    );
    expect(
      peerViewRefusal('etcd-3', 'x', { seenBy: [], notSeenBy: [], unasked: ['etcd-1 (timeout)'] }),
    ).toMatch(
      /no other member's \/metrics answered.*a member is called lost only when a second view agrees$/,
    );
    expect(
      peerViewRefusal('etcd-3', 'x', { seenBy: [], notSeenBy: ['etcd-1', 'etcd-2'], unasked: [] }),
    ).toBeUndefined();
  });
});
