import type { Rule } from '../rule.js';
import { memberDownRule } from './member-down.js';
import { quorumLostRule } from './quorum-lost.js';
import { slowDiskRule } from './slow-disk.js';

/** Every rule the engine runs. Adding a rule: one file here, one line below, one test. */
export const rules: readonly Rule[] = [quorumLostRule, memberDownRule, slowDiskRule];
