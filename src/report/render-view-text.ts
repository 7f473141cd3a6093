import type { RemediationStep } from '../diagnosis/finding.js';
import type { ChatView, NotOffered, ViewButton } from './chat-view.js';
import { actionLabel, progressText, STATUS_WORD } from './chat-view.js';
import { terminalSafe } from '../format.js';
import { renderText } from './render-text.js';

export interface TextRenderOptions {
  /** How a button is shown, e.g. `[3] Re-run diagnosis` in the shell; default `[label]`. */
  button?: (button: ViewButton) => string;
}

/**
 * mrkdwn as a terminal shows it: `*bold*` and `` `code` `` are their words, a user mention
 * `<@U0SHELL>` is `@U0SHELL`; a line of only ``` (a code block's fence) goes.
 */
export function plainText(mrkdwn: string): string {
  const unfenced = mrkdwn
    .split('\n')
    .filter((line) => line !== '```')
    .join('\n');
  return terminalSafe(
    unfenced
      .replace(/\*([^*\n]+)\*/g, '$1')
      .replace(/`([^`\n]+)`/g, '$1')
      .replace(/<@([A-Z0-9]{1,32})>/g, '@$1'),
  );
}

/** A view as terminal text: the shell adapter prints this, the memory adapter records it. */
export function renderViewText(view: ChatView, opts: TextRenderOptions = {}): string {
  switch (view.kind) {
    case 'text': {
      const lines = view.title ? [view.title, ...view.lines] : [...view.lines];
      if (view.actor !== undefined && lines[0] !== undefined) lines[0] = `@${view.actor} ${lines[0]}`;
      if (view.link) lines.push(`${view.link.label}: ${view.link.url}`);
      if (view.buttons?.length) {
        const button = opts.button ?? ((b: ViewButton) => `[${b.label}]`);
        lines.push(`Buttons: ${view.buttons.map(button).join('  ')}`);
      }
      return plainText(lines.join('\n'));
    }
    case 'progress':
      return plainText(progressText(view));
    case 'verdict':
      return plainText(`[${STATUS_WORD[view.status]}] ${view.cluster}: ${view.headline}`);
    case 'report': {
      const button = opts.button ?? ((b: ViewButton) => `[${b.label}]`);
      // Each button is drawn once (the shell numbers them as they are drawn); a step shows the same words.
      const shown = new Map(view.buttons.map((b) => [b, button(b)]));
      const stepButton = (step: RemediationStep) => {
        const b = view.buttons.find((vb) => performs(vb, step));
        return b && shown.get(b);
      };
      // Steps and evidence quote commands as Slack code (`etcd-doctor health`): plain words here.
      const text = plainText(renderText(view.report, { stepButton }));
      const lines = shown.size ? [`Buttons: ${[...shown.values()].join('  ')}`] : [];
      if (view.notOffered?.length) lines.push(notOfferedLine(view.notOffered));
      return lines.length ? terminalSafe(`${text}\n\n${lines.join('\n')}`) : text;
    }
  }
}

/** Below the buttons, once: `Not offered: Restart etcd-2 (cluster local has no kubernetes: section in the config)`. */
export function notOfferedLine(notOffered: readonly NotOffered[]): string {
  return `Not offered: ${notOffered.map((n) => `${n.label} (${n.why})`).join('; ')}`;
}

/**
 * The button that performs a step: the same action on the same target. One re-run (the report's
 * own, about no finding) serves every step that says run it again; a step that asks for the other
 * depth (a health check's "run a diagnosis") has its own button, made for its finding.
 */
function performs(button: ViewButton, step: RemediationStep): boolean {
  if (button.action !== step.action) return false;
  if (step.action === 'rerun') return step.args?.depth ? button.finding !== null : button.finding === null;
  return button.label === actionLabel(step.action, step.args);
}
