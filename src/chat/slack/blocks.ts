/**
 * The Block Kit subset etcd-doctor posts, and the limits Slack enforces (shared/reference/slack-contract.md §6).
 * Neither Bolt nor @slack/web-api checks these client-side: a message past a limit is refused with
 * `invalid_blocks`, so `fitBlocks` keeps every message inside them.
 */
export interface MrkdwnText {
  type: 'mrkdwn';
  text: string;
}

export interface PlainText {
  type: 'plain_text';
  text: string;
  emoji?: boolean;
}

export interface ButtonElement {
  type: 'button';
  action_id: string;
  text: PlainText;
  value: string;
  style?: 'primary' | 'danger';
  /** Slack's confirmation dialog object (Block Kit reference: title ≤ 100, text ≤ 300, buttons ≤ 30 chars). */
  confirm?: {
    title: PlainText;
    text: { type: 'mrkdwn'; text: string };
    confirm: PlainText;
    deny: PlainText;
    style?: 'primary' | 'danger';
  };
}

export type Block =
  | { type: 'header'; text: PlainText }
  | { type: 'section'; text: MrkdwnText }
  | { type: 'context'; elements: MrkdwnText[] }
  | { type: 'divider' }
  | { type: 'actions'; elements: ButtonElement[] };

/** contract §6, each from Slack's Block Kit reference pages. */
export const LIMITS = {
  blocksPerMessage: 50,
  sectionText: 3000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  /** Undocumented: `msg_blocks_too_long` was seen at ~13.2k characters of block text (bolt-js#2509). */
  totalText: 12_000,
} as const;

const ELLIPSIS = '…';

/** Cuts `text` to `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - ELLIPSIS.length)}${ELLIPSIS}`;
}

/** Splits lines into section texts of at most `max` characters each (a longer line is clipped). */
export function chunkLines(lines: string[], max: number = LIMITS.sectionText): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const raw of lines) {
    const line = clip(raw, max);
    if (current && current.length + 1 + line.length > max) {
      chunks.push(current);
      current = '';
    }
    current = current ? `${current}\n${line}` : line;
  }
  if (current) chunks.push(current);
  return chunks;
}

function blockText(block: Block): number {
  switch (block.type) {
    case 'header':
    case 'section':
      return block.text.text.length;
    case 'context':
      return block.elements.reduce((n, e) => n + e.text.length, 0);
    case 'actions':
      return block.elements.reduce((n, e) => n + e.text.text.length + e.value.length, 0);
    case 'divider':
      return 0;
  }
}

function clipButtons(elements: ButtonElement[]): ButtonElement[] {
  // A value past the limit cannot be clipped (it is a reference): such a button is left out.
  return elements
    .filter((e) => e.value.length <= LIMITS.buttonValue)
    .slice(0, LIMITS.actionsElements)
    .map((e) => ({ ...e, text: { ...e.text, text: clip(e.text.text, LIMITS.buttonText) } }));
}

function clipBlock(block: Block): Block {
  switch (block.type) {
    case 'header':
      return { ...block, text: { ...block.text, text: clip(block.text.text, LIMITS.headerText) } };
    case 'section':
      return { ...block, text: { ...block.text, text: clip(block.text.text, LIMITS.sectionText) || ' ' } };
    case 'context':
      return { ...block, elements: block.elements.slice(0, LIMITS.contextElements) };
    case 'actions':
      return { ...block, elements: clipButtons(block.elements) };
    case 'divider':
      return block;
  }
}

/** Clips a block; `cut` says whether anything was lost. An actions block left without buttons is dropped. */
function fitOne(block: Block): { block: Block | undefined; cut: boolean } {
  const clipped = clipBlock(block);
  const cut = JSON.stringify(clipped) !== JSON.stringify(block);
  if (clipped.type === 'actions' && clipped.elements.length === 0) return { block: undefined, cut: true };
  return { block: clipped, cut };
}

export interface FittedBlocks {
  blocks: Block[];
  /** Something was cut: the caller attaches the full text elsewhere (a file or a follow-up). */
  truncated: boolean;
}

/**
 * Clips every text to its limit, then keeps `body` blocks in order while the block count and the
 * total text stay in budget. `tail` blocks (re-run buttons) always stay; `note` (e.g. "full report
 * attached") is added only when something was cut.
 */
export function fitBlocks(body: Block[], tail: Block[] = [], note?: Block): FittedBlocks {
  const fittedBody = body.map(fitOne);
  const fittedTail = tail.flatMap((b) => fitOne(b).block ?? []);
  let truncated = fittedBody.some((f) => f.cut);
  const reserved = fittedTail.length + (note ? 1 : 0);
  let budget =
    LIMITS.totalText - [...fittedTail, ...(note ? [note] : [])].reduce((n, b) => n + blockText(b), 0);
  const kept: Block[] = [];
  for (const { block } of fittedBody) {
    if (!block) continue;
    const size = blockText(block);
    if (kept.length >= LIMITS.blocksPerMessage - reserved || size > budget) {
      truncated = true;
      break;
    }
    kept.push(block);
    budget -= size;
  }
  while (kept.at(-1)?.type === 'divider') kept.pop();
  const noteBlock = truncated && note ? fitOne(note).block : undefined;
  return { blocks: [...kept, ...(noteBlock ? [noteBlock] : []), ...fittedTail], truncated };
}
