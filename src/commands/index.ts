import type { ChatCommand } from './command.js';
import backups from './backups.js';
import clusters from './clusters.js';
import diagnose from './diagnose.js';
import digest from './digest.js';
import health from './health.js';
import help from './help.js';
import recover from './recover.js';
import space from './space.js';
import status from './status.js';
import upgradeCheck from './upgrade-check.js';
import watch from './watch.js';

/** Every chat command. Adding one means a file here and a line in this list. */
export const commands: readonly ChatCommand[] = [
  health,
  diagnose,
  space,
  status,
  backups,
  upgradeCheck,
  recover,
  clusters,
  digest,
  watch,
  help,
];
