// Minimal types for parse-prometheus-text-format 1.1.1 (CommonJS, `module.exports = fn`), covering only
// what it returns. Values stay strings, exactly as they appear in the text ("+Inf", "2.1e+09").
declare module 'parse-prometheus-text-format' {
  namespace parsePrometheusTextFormat {
    interface Sample {
      value?: string;
      labels?: Record<string, string>;
      timestamp_ms?: string;
      /** Only on HISTOGRAM families, keyed by `le`. The parser drops every other label here. */
      buckets?: Record<string, string>;
      /** Only on SUMMARY families, keyed by `quantile`. */
      quantiles?: Record<string, string>;
      count?: string;
      sum?: string;
    }
    interface MetricFamily {
      name: string;
      help: string;
      /** The `# TYPE` upper-cased, or `UNTYPED`. */
      type: string;
      metrics: Sample[];
    }
  }
  /** Throws `InvalidLineError` on a line it cannot read. */
  function parsePrometheusTextFormat(text: string): parsePrometheusTextFormat.MetricFamily[];
  export = parsePrometheusTextFormat;
}
