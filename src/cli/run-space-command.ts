import { readFile, writeFile } from 'node:fs/promises';
import { findCluster, loadConfigFor } from '../config/load-config.js';
import { describeError, EtcdDoctorError } from '../errors.js';
import { terminalSafe } from '../format.js';
import { measureSpace, SpaceUnavailableError } from '../space/measure-space.js';
import { progressWords, renderSpaceText } from '../space/render-space.js';
import { type CliIo, EXIT } from './io.js';

export interface SpaceOptions {
  config?: string;
  json?: boolean;
  chart?: string;
  /** MB/s, decimal (`--rate 5`). */
  rate?: string;
  maxSeconds?: string;
}

const PROGRESS_EVERY_MS = 1000;

function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new EtcdDoctorError('command_invalid', `${flag} must be a positive number, not "${value}"`);
  return n;
}

/**
 * `etcd-doctor space <cluster>`: what fills its etcd, measured live from a follower (text, or the
 * JSON contract with --json; --chart also writes the bar chart). Progress goes to stderr once a
 * second, so --json stays one document. Exit 0 with an answer (a partial scan says so), 3 when no
 * member answered, 2 for usage and config errors.
 */
export async function runSpaceCommand(
  clusterName: string,
  options: SpaceOptions,
  io: CliIo,
): Promise<number> {
  const config = await loadConfigFor(options.config, io.env);
  const cluster = findCluster(config, clusterName);
  const rate = positive(options.rate, '--rate');
  const maxSeconds = positive(options.maxSeconds, '--max-seconds');
  let lastProgress = Date.now();
  try {
    const report = await measureSpace(
      cluster,
      { readFileBuffer: (p) => readFile(p) },
      {
        ...(rate ? { bytesPerSecond: Math.round(rate * 1_000_000) } : {}),
        ...(maxSeconds ? { maxScanSeconds: Math.round(maxSeconds) } : {}),
        onProgress: (p) => {
          if (Date.now() - lastProgress < PROGRESS_EVERY_MS) return;
          lastProgress = Date.now();
          io.stderr(`etcd-doctor: ${terminalSafe(progressWords(cluster.name, p))}`);
        },
      },
    );
    io.stdout(options.json ? JSON.stringify(report, null, 2) : terminalSafe(renderSpaceText(report)));
    if (options.chart) {
      const { renderSpaceChart } = await import('../charts/space-chart.js');
      const image = await renderSpaceChart(report);
      await writeFile(options.chart, image.png);
      // The title names the largest resource: text from a key, so made safe for a terminal.
      io.stderr(
        terminalSafe(
          `chart: wrote ${options.chart} (${image.title}, ${image.widthPx}x${image.heightPx} PNG)`,
        ),
      );
    }
    return EXIT.healthy;
  } catch (err) {
    if (!(err instanceof SpaceUnavailableError)) throw err;
    io.stderr(`etcd-doctor: ${describeError(err)}`);
    return EXIT.couldNotCheck;
  }
}
