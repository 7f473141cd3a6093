import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TextView } from '../../../src/report/chat-view.js';
import { ALICE, type Harness, startHarness, textOf } from '../../support/chat/remediation-harness.js';

const CAROL = 'U0CAROL';

/**
 * The confirmation step of a click on a real Redis (remediation/handle-click.ts confirm): one open
 * per plan. `replace-member` offers two "Run it" choices, so the holder's second press must give
 * back both buttons, in order, on the plans first shown. No etcd: a click reads none.
 */
describe('one open confirmation per plan', () => {
  let h: Harness;

  beforeAll(async () => {
    const cluster = { name: 'local', etcd: { endpoints: ['http://127.0.0.1:9'] } };
    h = await startHarness([{ ...cluster, remediation: { responders: [ALICE, CAROL] } }], 'confirmations');
  });

  afterAll(async () => {
    await h?.close();
  });

  const buttonsOf = (view: unknown) =>
    ((view as TextView | undefined)?.buttons ?? []).map((b) => ({
      label: b.label,
      value: b.value,
      style: b.style,
      title: b.confirm?.title,
    }));

  it('gives its holder the same Run it buttons again, and tells another responder who holds it', async () => {
    const anchor = await h.anchor();
    const replace = await h.button('replace-member', { member: 'etcd-2' });
    const [first] = await h.chat.click(anchor, replace, { user: ALICE });
    const shown = buttonsOf(first);
    expect(shown.map((b) => b.label)).toEqual([
      'Run it, promote when caught up',
      'Run it, I will press Promote',
    ]);
    expect(shown.every((b) => b.style === 'danger' && b.title === 'Replace local?')).toBe(true);
    expect(new Set(shown.map((b) => b.value)).size).toBe(2);
    expect(textOf(first)).toMatch(
      /Press \*Run it, promote when caught up\* or \*Run it, I will press Promote\* to start/,
    );

    const [carol] = await h.chat.click(anchor, replace, { user: CAROL });
    expect(textOf(carol)).toMatch(
      /<@U0ALICE> already has the confirmation of \*replace-member\* open; it runs once/,
    );
    expect(buttonsOf(carol)).toEqual([]);

    const [again] = await h.chat.click(anchor, replace, { user: ALICE });
    expect(buttonsOf(again)).toEqual(shown);

    const events = (await h.audit()).filter((r) => r.action === 'replace-member').map((r) => r.event);
    expect(events.sort()).toEqual(['confirm-shown', 'confirm-shown', 'refused']);
  });
});
