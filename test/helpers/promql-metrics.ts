/**
 * The metric names a PromQL expression (or a Grafana `label_values(selector, label)` query)
 * reads: what remains after dropping strings, label matchers, ranges, grouping clauses, function
 * names, keywords and numbers. Enough for the expressions of kop's dashboards; not a full parser.
 */
export function metricNamesOf(expr: string): string[] {
  let text = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/'(?:[^'\\]|\\.)*'/g, "''")
    // label_values(<selector>, <label>): the label is no metric.
    .replace(/label_values\(([^,()]*(?:\{[^}]*\})?[^,()]*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)/g, '($1)')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  text = text.replace(/\b(offset)\s+\S+/g, ' ');
  const keywords = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'group_left', 'group_right']);
  const names = new Set<string>();
  for (const match of text.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const after = text.slice(match.index! + match[0].length);
    if (/^\s*\(/.test(after)) continue; // a function
    if (keywords.has(match[0].toLowerCase())) continue;
    const before = text.slice(0, match.index!);
    if (/[0-9.]$/.test(before)) continue; // the exponent or unit of a number
    names.add(match[0]);
  }
  return [...names].sort();
}

/** The series names a Prometheus text exposition offers: each family, and a histogram's or summary's _bucket/_sum/_count. */
export function exportedSeriesNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const match = /^# TYPE (\S+) (\S+)/.exec(line);
    if (!match) continue;
    const [, name, type] = match as unknown as [string, string, string];
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
  }
  return names;
}

/** Every PromQL string of a Grafana dashboard: panel targets and query variables. */
export function dashboardQueries(dashboard: unknown): string[] {
  const queries: string[] = [];
  const model = dashboard as {
    panels?: { targets?: { expr?: string }[] }[];
    templating?: { list?: { type?: string; query?: unknown }[] };
  };
  for (const panel of model.panels ?? [])
    for (const target of panel.targets ?? []) if (target.expr) queries.push(target.expr);
  for (const variable of model.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const query =
      typeof variable.query === 'string' ? variable.query : (variable.query as { query?: string } | undefined)?.query;
    if (query) queries.push(query);
  }
  return queries;
}
