import { Secret } from '../../../src/secret.js';
import { createRecordSigner } from '../../../src/state/record-signer.js';

/**
 * REMEDIATION_SIGNING_KEY of the tests: the roles a test starts (in process or as processes) and the
 * plans it saves itself share it, as a deployment's bot and workers share theirs. Never shipped.
 */
export const TEST_SIGNING_KEY_TEXT = 'test-remediation-signing-key-0123456789abcdef';
export const TEST_SIGNING_KEY = new Secret(TEST_SIGNING_KEY_TEXT);
export const testSigner = createRecordSigner(TEST_SIGNING_KEY);
