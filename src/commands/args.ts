import { z } from 'zod';

/** Any word: whether it names a cluster is for the config to say (an unknown one lists the known ones). */
const clusterWord = z.string().min(1).max(64);

/** `<cluster>`, exactly one word. */
export const oneCluster = z.tuple([clusterWord]).transform(([cluster]) => ({ cluster }));

/** No words at all. */
export const noArgs = z.tuple([]).transform(() => ({}));

/** An optional single word, e.g. `help [command]`. */
export const optionalWord = z
  .union([z.tuple([]), z.tuple([z.string().min(1).max(64)])])
  .transform((words) => ({ word: words[0] }));
