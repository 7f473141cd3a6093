import { describe, expect, it } from '@jest/globals';
import { isSlackFileUrl } from '../../../src/chat/slack/slack-file-download.js';

/** The bot token goes with every file download: only Slack's own hosts may receive it. */
describe('isSlackFileUrl', () => {
  const SLACK = 'https://slack.com/api/';

  it("takes Slack's file hosts for the default Web API", () => {
    expect(isSlackFileUrl(SLACK, 'https://files.slack.com/files-pri/T1-F1/download/etcd.log')).toBe(true);
    expect(isSlackFileUrl(SLACK, 'https://acme.slack.com/files-pri/T1-F1/etcd.log')).toBe(true);
    expect(isSlackFileUrl('https://slack-gov.com/api/', 'https://files.slack-gov.com/files-pri/x')).toBe(
      true,
    );
  });

  it('refuses other hosts, look-alikes, plain http, other ports and credentials in the URL', () => {
    for (const url of [
      'https://evil.example/files-pri/T1-F1/etcd.log',
      'https://slack.com.evil.example/x',
      'https://evilslack.com/x',
      'http://files.slack.com/x',
      'https://files.slack.com:8443/x',
      'https://user:pass@files.slack.com/x',
      'file:///etc/passwd',
      'not a url',
    ])
      expect(isSlackFileUrl(SLACK, url)).toBe(false);
  });

  it('with SLACK_API_URL on loopback (the test fake), takes exactly that origin', () => {
    const fake = 'http://127.0.0.1:40123/api/';
    expect(isSlackFileUrl(fake, 'http://127.0.0.1:40123/files-pri/T111-F1/download/a.log')).toBe(true);
    expect(isSlackFileUrl(fake, 'http://127.0.0.1:40124/files-pri/T111-F1/download/a.log')).toBe(false);
    expect(isSlackFileUrl(fake, 'http://127.0.0.2:40123/x')).toBe(false);
  });
});
