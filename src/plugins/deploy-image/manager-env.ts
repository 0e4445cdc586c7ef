import { KopError } from '../../base/index.js';
import { insertIntoFile, markerComment, yamlScalar, type VirtualTree } from '../../scaffold/index.js';

/** The manager's Deployment, where the operand images are set. */
export const MANAGER_YAML = 'config/manager/manager.yaml';
/** The marker the image variables are inserted before. */
export const MANAGER_ENV_MARKER = 'manager-env';

/**
 * Sets `name: value` in the env of the manager container of config/manager/manager.yaml, at the
 * `# +kop:scaffold:manager-env` marker. A manifest without the marker gets it on first use: in
 * the container's `env:` list when it has one, else in a new `env:` before its `ports:`. A variable
 * of that name already set is left as the user has it.
 */
export async function insertManagerEnv(tree: VirtualTree, name: string, value: string): Promise<void> {
  const text = await tree.read(MANAGER_YAML);
  if (text === undefined)
    throw new KopError(
      `${MANAGER_YAML} does not exist, so kop cannot set ${name} for the manager`,
      'restore it (kop init --force writes it again)',
    );
  const marker = markerComment(MANAGER_YAML, MANAGER_ENV_MARKER);
  const lines = text.split('\n');
  if (lines.some((line) => new RegExp(`^\\s*- name: ${name}\\s*$`).test(line))) return;
  if (!lines.some((line) => line.trim() === marker))
    await tree.update(MANAGER_YAML, (content) => withMarker(content, marker));
  await insertIntoFile(tree, MANAGER_YAML, [
    { marker: MANAGER_ENV_MARKER, code: `- name: ${name}\n  value: ${yamlScalar(value)}` },
  ]);
}

/** Adds the marker to the manager container's env (creating `env:` when there is none). */
function withMarker(content: string, marker: string): string {
  const lines = content.split('\n');
  const start = lines.findIndex((line) => /^\s*- name: manager\s*$/.test(line));
  const hint = `add \`env:\` with a line \`${marker}\` below it to the manager container, then re-run`;
  if (start === -1)
    throw new KopError(`${MANAGER_YAML} has no container named manager to set the image variable in`, hint);
  const keyIndent = /^(\s*)-/.exec(lines[start]!)![1]!.length + 2;
  let env = -1;
  let ports = -1;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const indent = /^\s*/.exec(line)![0].length;
    if (indent < keyIndent) break;
    if (indent !== keyIndent) continue;
    if (/^\s*env:\s*$/.test(line)) env = i;
    if (/^\s*ports:/.test(line)) ports = i;
  }
  const pad = ' '.repeat(keyIndent);
  if (env !== -1) {
    // After the last item of the list.
    let at = env + 1;
    const inList = (line: string) =>
      line.trim() === '' || /^\s*/.exec(line)![0].length > keyIndent || line.startsWith(`${pad}- `);
    while (at < lines.length && inList(lines[at]!)) at++;
    // Blank lines at the end of the list stay after the marker.
    while (at > env + 1 && lines[at - 1]!.trim() === '') at--;
    return [...lines.slice(0, at), `${pad}  ${marker}`, ...lines.slice(at)].join('\n');
  }
  if (ports !== -1)
    return [...lines.slice(0, ports), `${pad}env:`, `${pad}  ${marker}`, ...lines.slice(ports)].join('\n');
  throw new KopError(
    `${MANAGER_YAML}: the manager container has neither env: nor ports:, so kop cannot tell where to set the image variable`,
    hint,
  );
}
