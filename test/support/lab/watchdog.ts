import { spawn } from 'node:child_process';
import { Socket } from 'node:net';

/**
 * A /bin/sh that cleans up after us when we die. It reads "+PID" and "-PID" lines on stdin; when
 * stdin reaches EOF because our end closed (we exited, crashed or were SIGKILLed), it SIGKILLs
 * every PID still listed and removes the lab dir. A `process.on('exit')` hook is not enough:
 * Jest gives each test file a sandboxed `process` whose 'exit' event never fires.
 */
export interface Watchdog {
  add(pid: number): void;
  remove(pid: number): void;
  /** A clean teardown: the watchdog exits without touching anything. */
  disarm(): void;
}

// `sleep` gives the killed processes a moment to die before their files go; we cannot wait() for them.
const SCRIPT = `
trap '' INT HUP
dir=$1
pids=''
while IFS= read -r line; do
  case $line in
    quit) exit 0 ;;
    +*) pids="$pids \${line#+}" ;;
    -*) keep=''; for p in $pids; do [ "$p" = "\${line#-}" ] || keep="$keep $p"; done; pids=$keep ;;
  esac
done
[ -z "$pids" ] || kill -9 $pids 2>/dev/null
sleep 0.5
rm -rf -- "$dir"
`;

export function startWatchdog(labDir: string): Watchdog {
  const child = spawn('/bin/sh', ['-c', SCRIPT, 'etcd-lab-watchdog', labDir], {
    stdio: ['pipe', 'ignore', 'ignore'],
    env: { PATH: '/usr/bin:/bin' },
  });
  // Neither the watchdog nor its pipe may keep our event loop alive; it only matters once we are gone.
  child.unref();
  if (child.stdin instanceof Socket) child.stdin.unref();
  // If the watchdog died, writes fail with EPIPE; the lab still works, only crash cleanup is lost.
  child.stdin.on('error', () => undefined);
  const send = (line: string): void => {
    if (child.stdin.writable) child.stdin.write(`${line}\n`);
  };
  return {
    add: (pid) => send(`+${pid}`),
    remove: (pid) => send(`-${pid}`),
    disarm: () => {
      send('quit');
      child.stdin.end();
    },
  };
}
