// `node --import ./test/support/process/module-graph-preload.mjs ...`: at exit, writes every module the
// process loaded (file: URLs, one a line) to $MODULE_GRAPH_OUT. ES modules are seen by a load hook
// (it runs on the loader thread, so it appends as each loads); CommonJS ones required from other
// CommonJS never reach that hook, so the require cache is added at exit. A file that
// bin/code-cache.js loaded from V8's code cache gets a second line, `code-cache=<state> <url>`
// (accepted, rejected or absent).
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const out = process.env.MODULE_GRAPH_OUT;
if (out) {
  const hooks = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(out)}, url + '\\n');
  return next(url, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
  const require = createRequire(import.meta.url);
  process.on('exit', () => {
    const cjs = Object.entries(require.cache).map(([file, module]) => {
      const url = pathToFileURL(file).href;
      return module?.codeCache ? `${url}\ncode-cache=${module.codeCache} ${url}\n` : `${url}\n`;
    });
    appendFileSync(out, cjs.join(''));
  });
}
