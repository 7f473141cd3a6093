/**
 * The one place that decides what of a text reaches Slack as markup. Slack's mrkdwn turns
 * `<!channel>`, `<@U123>`, `<!subteam^S123>` and `<https://evil|https://grafana…>` into live
 * mentions and relabelled links; escaping `&`, `<` and `>` makes them text (docs.slack.dev,
 * "Formatting text for app surfaces": escape exactly these three). Every renderer of src/chat/slack
 * uses these functions:
 * - `escapeMrkdwn` for everything by default: alert annotations and labels, logs, tracker answers,
 *   member names, error messages;
 * - `ownMrkdwn` only for lines etcd-doctor wrote itself (a view marked `liveMentions`): there, and
 *   only there, user and user-group mentions are put back;
 * - `slackLink` for every link: a URL that is not http(s), or that holds `<`, `>` or `|`, is shown
 *   as escaped text instead of being linked.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes, then restores user (`<@U…>`) and user-group (`<!subteam^S…>`) mentions; ids are [A-Z0-9]. */
export function ownMrkdwn(text: string): string {
  return escapeMrkdwn(text).replace(/&lt;(@[UW][A-Z0-9]+|!subteam\^S[A-Z0-9]+)&gt;/g, '<$1>');
}

/** An http(s) URL that Slack's `<url|label>` cannot be tricked by. */
export function isLinkableUrl(url: string): boolean {
  if (/[<>|\s]/.test(url)) return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:';
  } catch {
    return false;
  }
}

/** `<url|label>` with the label escaped, or escaped text when the URL cannot be linked safely. */
export function slackLink(url: string, label: string): string {
  if (!isLinkableUrl(url))
    return `${escapeMrkdwn(label)}: \`${escapeMrkdwn(url)}\` (not linked: not a plain http(s) URL)`;
  return `<${url}|${escapeMrkdwn(label)}>`;
}
