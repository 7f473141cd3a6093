import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { VERSION } from '../../src/version.js';
import { cliInProcess } from '../support/process/cli-in-process.js';

describe('etcd-doctor --version', () => {
  it("prints package.json's version and exits 0 (issue 42: the CLI had no --version)", async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
    for (const flag of ['--version', '-V']) {
      const r = await cliInProcess([flag]);
      expect(r).toEqual({ code: 0, stdout: `etcd-doctor ${pkg.version}`, stderr: '' });
    }
  });
});
