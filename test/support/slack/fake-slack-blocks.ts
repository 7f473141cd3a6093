/**
 * Block Kit limits as the fake Slack enforces them. Neither Bolt nor @slack/web-api checks these
 * client-side, so this is the only place a limit violation surfaces in tests
 * (shared/reference/slack-contract.md §6, last note).
 *
 * Wording: "must be less than N characters" and "failed to match all allowed schemas" are real Slack
 * captures (§6 and sample webapi.chat.postMessage.invalid_blocks.observed.json.source.txt);
 * "no more than N items allowed [json-pointer:/blocks]" is a third-party capture of Slack's answer to
 * 51 blocks. The other wordings are the fake's own, in the same style.
 */

/** One problem, printed by Slack as `<reason> [json-pointer:<pointer>]`. */
export interface BlockProblem {
  pointer: string;
  reason: string;
}

export type Surface = 'message' | 'modal';

// contract §6 table (each row cites the Slack doc page it comes from).
const MAX_BLOCKS: Record<Surface, number> = { message: 50, modal: 100 };
const BLOCK_ID_MAX = 255;
const SECTION_TEXT_MAX = 3000;
const SECTION_FIELDS_MAX = 10;
const SECTION_FIELD_TEXT_MAX = 2000;
const HEADER_TEXT_MAX = 150;
const ACTIONS_ELEMENTS_MAX = 25;
const CONTEXT_ELEMENTS_MAX = 10;
const MARKDOWN_TEXT_MAX = 12_000;
const BUTTON_TEXT_MAX = 75;
const ACTION_ID_MAX = 255;
const BUTTON_VALUE_MAX = 2000;
const BUTTON_URL_MAX = 3000;
const ACCESSIBILITY_LABEL_MAX = 75;
// contract §3.3: confirmation dialog object.
const CONFIRM_TITLE_MAX = 100;
const CONFIRM_TEXT_MAX = 300;
const CONFIRM_BUTTON_MAX = 30;
// contract §3.4: modal view limits.
const MODAL_TITLE_MAX = 24;
const MODAL_PRIVATE_METADATA_MAX = 3000;
const MODAL_CALLBACK_ID_MAX = 255;
/** contract §6: message `text` is truncated at 40,000 characters and still posted. */
export const MESSAGE_TEXT_MAX = 40_000;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class Problems {
  readonly list: BlockProblem[] = [];
  add(pointer: string, reason: string): void {
    this.list.push({ pointer, reason });
  }
  maxChars(value: unknown, max: number, pointer: string): void {
    if (typeof value === 'string' && value.length > max)
      this.add(pointer, `must be less than ${max + 1} characters`);
  }
  maxItems(value: unknown, max: number, pointer: string): void {
    if (Array.isArray(value) && value.length > max) this.add(pointer, `no more than ${max} items allowed`);
  }
  /** A text object `{type, text}`: checks `.text`. */
  textObject(value: unknown, max: number, pointer: string): void {
    if (isRecord(value)) this.maxChars(value.text, max, `${pointer}/text`);
  }
}

/**
 * Checks `blocks` (already JSON-decoded). Returns `'invalid_blocks_format'` when it is not an array of
 * objects (contract §6 "Related codes"), else the list of limit violations (empty when valid).
 */
export function validateBlocks(
  blocks: unknown,
  surface: Surface,
  pointer = '/blocks',
): BlockProblem[] | 'invalid_blocks_format' {
  if (!Array.isArray(blocks) || !blocks.every(isRecord)) return 'invalid_blocks_format';
  const problems = new Problems();
  problems.maxItems(blocks, MAX_BLOCKS[surface], pointer);
  blocks.forEach((block, i) => {
    checkBlock(block, `${pointer}/${i}`, problems);
  });
  return problems.list;
}

function checkBlock(block: Record<string, unknown>, at: string, p: Problems): void {
  p.maxChars(block.block_id, BLOCK_ID_MAX, `${at}/block_id`);
  if (typeof block.type !== 'string') p.add(`${at}/type`, 'missing required field: type');
  else BLOCK_CHECKS.get(block.type)?.(block, at, p);
}

type BlockCheck = (block: Record<string, unknown>, at: string, p: Problems) => void;

const BLOCK_CHECKS = new Map<string, BlockCheck>(
  Object.entries({
    section: checkSection,
    header: (block, at, p) => p.textObject(block.text, HEADER_TEXT_MAX, `${at}/text`),
    markdown: (block, at, p) => p.maxChars(block.text, MARKDOWN_TEXT_MAX, `${at}/text`),
    actions: (block, at, p) => {
      p.maxItems(block.elements, ACTIONS_ELEMENTS_MAX, `${at}/elements`);
      eachElement(block.elements, `${at}/elements`, p);
    },
    context: (block, at, p) => p.maxItems(block.elements, CONTEXT_ELEMENTS_MAX, `${at}/elements`),
    input: (block, at, p) => checkElement(block.element, `${at}/element`, p),
  } satisfies Record<string, BlockCheck>),
);

function checkSection(block: Record<string, unknown>, at: string, p: Problems): void {
  const text = block.text;
  if (isRecord(text) && typeof text.text === 'string') {
    // Real capture for 3001 chars: both the schema line and the length line (contract §6).
    if (text.text.length > SECTION_TEXT_MAX || text.text.length === 0) {
      p.add(`${at}/text`, 'failed to match all allowed schemas');
    }
    if (text.text.length === 0) p.add(`${at}/text/text`, 'must be more than 0 characters');
    p.maxChars(text.text, SECTION_TEXT_MAX, `${at}/text/text`);
  }
  p.maxItems(block.fields, SECTION_FIELDS_MAX, `${at}/fields`);
  if (Array.isArray(block.fields)) {
    block.fields.forEach((field, i) => {
      p.textObject(field, SECTION_FIELD_TEXT_MAX, `${at}/fields/${i}`);
    });
  }
  checkElement(block.accessory, `${at}/accessory`, p);
}

function eachElement(elements: unknown, at: string, p: Problems): void {
  if (!Array.isArray(elements)) return;
  elements.forEach((element, i) => {
    checkElement(element, `${at}/${i}`, p);
  });
}

function checkElement(element: unknown, at: string, p: Problems): void {
  if (!isRecord(element)) return;
  p.maxChars(element.action_id, ACTION_ID_MAX, `${at}/action_id`);
  checkConfirm(element.confirm, `${at}/confirm`, p);
  if (element.type !== 'button') return;
  p.textObject(element.text, BUTTON_TEXT_MAX, `${at}/text`);
  p.maxChars(element.value, BUTTON_VALUE_MAX, `${at}/value`);
  p.maxChars(element.url, BUTTON_URL_MAX, `${at}/url`);
  p.maxChars(element.accessibility_label, ACCESSIBILITY_LABEL_MAX, `${at}/accessibility_label`);
}

function checkConfirm(confirm: unknown, at: string, p: Problems): void {
  if (!isRecord(confirm)) return;
  p.textObject(confirm.title, CONFIRM_TITLE_MAX, `${at}/title`);
  p.textObject(confirm.text, CONFIRM_TEXT_MAX, `${at}/text`);
  p.textObject(confirm.confirm, CONFIRM_BUTTON_MAX, `${at}/confirm`);
  p.textObject(confirm.deny, CONFIRM_BUTTON_MAX, `${at}/deny`);
}

/** Checks a modal `view` for views.open (contract §3.4); pointers start at `/view`. */
export function validateModalView(view: Record<string, unknown>): BlockProblem[] | 'invalid_blocks_format' {
  const blocks = validateBlocks(view.blocks ?? [], 'modal', '/view/blocks');
  if (blocks === 'invalid_blocks_format') return blocks;
  const p = new Problems();
  p.textObject(view.title, MODAL_TITLE_MAX, '/view/title');
  p.textObject(view.submit, MODAL_TITLE_MAX, '/view/submit');
  p.textObject(view.close, MODAL_TITLE_MAX, '/view/close');
  p.maxChars(view.private_metadata, MODAL_PRIVATE_METADATA_MAX, '/view/private_metadata');
  p.maxChars(view.callback_id, MODAL_CALLBACK_ID_MAX, '/view/callback_id');
  return [...blocks, ...p.list];
}

/** Slack's `ok:false` body for problems, shaped like the observed invalid_blocks sample. */
export function problemsResponse(error: string, problems: BlockProblem[]): Record<string, unknown> {
  const errors = problems.map((x) => `${x.reason} [json-pointer:${x.pointer}]`);
  return { ok: false, error, errors, response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) } };
}

/**
 * Truncates message text over 40,000 characters; the warning is the one in sample
 * webapi.chat.postMessage.message_truncated.json (contract §6).
 */
export function truncateText(text: string): { text: string; warning?: Record<string, unknown> } {
  if (text.length <= MESSAGE_TEXT_MAX) return { text };
  return {
    text: text.slice(0, MESSAGE_TEXT_MAX),
    warning: {
      warnings: ['message_truncated'],
      messages: [
        '[WARN] Your message was truncated but still posted. The `text` field accepts up to 40,000 characters.',
      ],
    },
  };
}
