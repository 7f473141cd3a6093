import { readFile, writeFile } from 'node:fs/promises';
import { loadConfigFor } from '../config/load-config.js';
import type { CheckDepth } from '../contracts/check-depth.js';
import { createDoctor } from '../doctor.js';
import type { Evidence } from '../probes/evidence.js';
import { renderText } from '../report/render-text.js';
import { type CliIo, exitCodeFor } from './io.js';

export interface CheckOptions {
  config?: string;
  json?: boolean;
  explain?: boolean;
  /** diagnose only: also write a PNG chart of the finding's metric here. */
  chart?: string;
}

/** `etcd-doctor health|diagnose <cluster>`: one check, printed. Loads no chat, queue or Redis code. */
export async function runCheck(
  depth: CheckDepth,
  clusterName: string,
  options: CheckOptions,
  io: CliIo,
): Promise<number> {
  const config = await loadConfigFor(options.config, io.env);
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  try {
    let evidence: Evidence | undefined;
    const report = await doctor.run(clusterName, depth, {
      explain: options.explain ?? false,
      onEvidence: (e) => {
        evidence = e;
      },
    });
    io.stdout(options.json ? JSON.stringify(report, null, 2) : renderText(report));
    // On stderr, so --json output stays one JSON document. Vega and resvg load only for --chart.
    if (options.chart && evidence) {
      const { saveChart } = await import('../charts/save-chart.js');
      io.stderr(await saveChart(options.chart, report, evidence, writeFile));
    }
    return exitCodeFor(report);
  } finally {
    await doctor.close();
  }
}
