import { describe, expect, it } from '@jest/globals';
import { cleanErrorText } from '../../../src/probes/probe.js';

describe('cleanErrorText', () => {
  it('drops grpc-js noise and OpenSSL error stacks', () => {
    expect(
      cleanErrorText(
        '14 UNAVAILABLE: No connection established. Last error: Failed to connect (2026-12-01T20:25:53.443Z). Resolution note: ',
      ),
    ).toBe('UNAVAILABLE: Failed to connect');
    expect(
      cleanErrorText(
        '14 UNAVAILABLE: No connection established. Last error: 803C2B7EBB7F0000:error:0A000412:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:SSL alert number 42',
      ),
    ).toBe('UNAVAILABLE: sslv3 alert bad certificate (SSL alert number 42)');
    expect(cleanErrorText('4 DEADLINE_EXCEEDED: Deadline exceeded after 3.000s')).toBe(
      'DEADLINE_EXCEEDED: Deadline exceeded after 3.000s',
    );
  });
});
