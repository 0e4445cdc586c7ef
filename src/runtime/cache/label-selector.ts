/** Tests the labels of an object against a parsed label selector. */
export type LabelMatcher = (labels: Readonly<Record<string, string>>) => boolean;

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Splits on commas outside parentheses: `a in (x,y),b` is two requirements. */
function splitRequirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(selector.slice(start));
  return parts.map((p) => p.trim());
}

function checkKey(key: string, selector: string): string {
  if (!KEY.test(key)) throw new SyntaxError(`label selector "${selector}": "${key}" is not a valid label key`);
  return key;
}

function checkValue(value: string, selector: string): string {
  if (!VALUE.test(value)) throw new SyntaxError(`label selector "${selector}": "${value}" is not a valid label value`);
  return value;
}

function requirement(text: string, selector: string): LabelMatcher {
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text);
  if (set) {
    const key = checkKey(set[1]!, selector);
    const values = new Set(set[3]!.split(',').map((v) => checkValue(v.trim(), selector)));
    return set[2] === 'in'
      ? (labels) => key in labels && values.has(labels[key]!)
      : (labels) => !(key in labels) || !values.has(labels[key]!);
  }
  const compare = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(text);
  if (compare) {
    const key = checkKey(compare[1]!, selector);
    const value = checkValue(compare[3]!, selector);
    return compare[2] === '!=' ? (labels) => labels[key] !== value : (labels) => key in labels && labels[key] === value;
  }
  if (text.startsWith('!')) {
    const key = checkKey(text.slice(1).trim(), selector);
    return (labels) => !(key in labels);
  }
  const key = checkKey(text, selector);
  return (labels) => key in labels;
}

/**
 * Parses a label selector in the syntax the apiserver takes (`app=web,tier!=db`,
 * `env in (prod,staging)`, `release notin (canary)`, `owner`, `!legacy`) into a matcher with the
 * same meaning, so a cache can be filtered exactly as a server-side list would be. An empty
 * selector matches everything; bad syntax throws a SyntaxError.
 */
export function parseLabelSelector(selector: string): LabelMatcher {
  if (selector.trim() === '') return () => true;
  const requirements = splitRequirements(selector).map((text) => {
    if (text === '') throw new SyntaxError(`label selector "${selector}": empty requirement`);
    return requirement(text, selector);
  });
  return (labels) => requirements.every((matches) => matches(labels));
}
