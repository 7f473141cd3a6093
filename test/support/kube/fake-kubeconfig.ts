import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KubeconfigOptions {
  context?: string;
  token: string;
  /** A directory to write into; a fresh temp dir by default. */
  dir?: string;
}

/**
 * Writes a kubeconfig for a local fake apiserver and returns its path. client-node 1.4 refuses a
 * plain `http://` server unless the cluster sets `insecure-skip-tls-verify: true`. A second,
 * unrelated context is included so tests show that `kubernetes.context` picks the right one.
 */
export async function writeFakeKubeconfig(server: string, opts: KubeconfigOptions): Promise<string> {
  const context = opts.context ?? 'fake-admin@fake';
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'etcd-doctor-kube-')));
  const path = join(dir, 'kubeconfig');
  const text = `apiVersion: v1
kind: Config
clusters:
  - name: fake
    cluster:
      server: ${server}
      insecure-skip-tls-verify: true
  - name: elsewhere
    cluster:
      server: http://127.0.0.1:9
      insecure-skip-tls-verify: true
users:
  - name: etcd-doctor
    user:
      token: ${opts.token}
  - name: nobody
    user:
      token: wrong-token
contexts:
  - name: ${context}
    context:
      cluster: fake
      user: etcd-doctor
  - name: elsewhere
    context:
      cluster: elsewhere
      user: nobody
current-context: elsewhere
`;
  await writeFile(path, text, 'utf8');
  return path;
}
