import { stringify } from 'yaml';

/**
 * YAML with Helm template text in it. Objects are serialised by the yaml library with
 * placeholders standing in for template text, then the placeholders are replaced: a scalar
 * placeholder by an expression on the same line, a block placeholder (a `KOPBLOCK<n>: null` key
 * line) by lines indented as that key was. So the YAML around the template text is the library's,
 * and the template text is exactly what kop wrote.
 */
export class TemplatedYaml {
  private readonly scalars = new Map<string, string>();
  private readonly blocks = new Map<string, string[]>();
  private counter = 0;

  /** A string to put where a value goes; it becomes `expression` (e.g. `{{ .Values.x }}`). */
  scalar(expression: string): string {
    const token = `KOPVAL${this.counter++}X`;
    this.scalars.set(token, expression);
    return token;
  }

  /**
   * A key to put in a map; its line becomes `lines`, each indented as the key was. In the lines,
   * `%+N%` becomes the key's indentation plus N, for `nindent` after a `{{-` that trims it.
   */
  block(lines: readonly string[]): string {
    const token = `KOPBLOCK${this.counter++}X`;
    this.blocks.set(token, [...lines]);
    return token;
  }

  /** A block holding `key:` and a list whose items each render only when their condition holds. */
  conditionalList(
    key: string,
    items: ReadonlyArray<{ value: unknown; condition?: string }>,
    extraLines: readonly string[] = [],
  ): string {
    const body: string[] = [];
    for (const item of items) {
      const itemLines = this.render([item.value]).replace(/\n$/, '').split('\n');
      if (item.condition) body.push(`{{- if ${item.condition} }}`);
      body.push(...itemLines.map((line) => `  ${line}`));
      if (item.condition) body.push('{{- end }}');
    }
    body.push(...extraLines.map((line) => `  ${line}`));
    if (items.length === 0 && extraLines.length === 0) return this.block([`${key}: []`]);
    if (extraLines.length > 0 || items.some((item) => !item.condition)) return this.block([`${key}:`, ...body]);
    // Every item is optional: an empty list when none is on, rather than a key without a value.
    const conditions = [...new Set(items.map((item) => item.condition!))];
    const any = conditions.length === 1 ? conditions[0]! : `or ${conditions.map((c) => `(${c})`).join(' ')}`;
    return this.block([`{{- if ${any} }}`, `${key}:`, ...body, '{{- else }}', `${key}: []`, '{{- end }}']);
  }

  /** Serialises `value` and replaces the placeholders it holds. */
  render(value: unknown): string {
    let text = stringify(value, { lineWidth: 0 });
    text = text.replace(/^([ \t]*)(KOPBLOCK\d+X): null$/gm, (_match, indent: string, token: string) => {
      const lines = this.blocks.get(token);
      if (!lines) throw new Error(`unknown block ${token}`);
      return lines
        .map(
          (line) =>
            `${indent}${line.replace(/%\+(\d+)%/g, (_m, extra: string) => String(indent.length + Number(extra)))}`,
        )
        .join('\n');
    });
    // A placeholder may come back from nested renders (a list item holding a scalar): replace until none is left.
    for (let pass = 0; pass < 3 && /KOPVAL\d+X/.test(text); pass++) {
      text = text.replace(/KOPVAL\d+X/g, (token) => this.scalars.get(token) ?? token);
    }
    return text;
  }
}
