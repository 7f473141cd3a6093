import type { Evidence } from '../../probes/evidence.js';

/** What the apiserver's own metrics say of the LISTs behind a read load (filled in with Kubernetes). */
export interface ListEvidence {
  /** `LISTs of pods across all namespaces, 3 a second, 85 MB each:` the summary's subject. */
  headline: string | undefined;
  resource: string | undefined;
  evidence: string[];
  unknowns: string[];
}

export function apiserverListEvidence(_evidence: Evidence): ListEvidence {
  return { headline: undefined, resource: undefined, evidence: [], unknowns: [] };
}
