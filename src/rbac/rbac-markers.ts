/**
 * `+kubebuilder:rbac:groups=...,resources=...,verbs=...` markers in the operator's
 * source (reconcilers, main.ts): the permissions the manager needs. Read from comment
 * lines of src/**\/*.ts without a TypeScript program; they are plain text.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { MarkerSyntaxError, type SourceLocation } from '../schema/errors.js';
import { parseArgument, splitTopLevel } from '../schema/markers.js';

/** One rbac marker as written. */
export interface RbacMarker {
  groups: string[];
  resources: string[];
  resourceNames: string[];
  verbs: string[];
  urls: string[];
  /** Set: the rule goes into a Role in this namespace instead of the ClusterRole. */
  namespace?: string;
  /** Overrides the role name (default `manager-role`). */
  roleName?: string;
  location: SourceLocation;
}

const PREFIX = '+kubebuilder:rbac:';
const LIST_ARGS = new Set(['groups', 'resources', 'resourceNames', 'verbs', 'urls']);
const STRING_ARGS = new Set(['namespace', 'roleName']);

/** Parses one marker line (`+kubebuilder:rbac:...`). */
export function parseRbacMarker(text: string, location: SourceLocation): RbacMarker {
  const body = text.trim().slice(PREFIX.length);
  const marker: RbacMarker = { groups: [], resources: [], resourceNames: [], verbs: [], urls: [], location };
  const fail = (problem: string): never => {
    throw new MarkerSyntaxError(
      location,
      '+kubebuilder:rbac',
      problem,
      'write it as +kubebuilder:rbac:groups=<g;g>,resources=<r;r>,verbs=<v;v>[,resourceNames=..][,urls=..][,namespace=..]',
    );
  };
  for (const part of splitTopLevel(body, ',')) {
    const eq = part.indexOf('=');
    if (eq < 0) fail(`argument "${part}" has no "="`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1);
    if (LIST_ARGS.has(key)) {
      (marker[key as 'groups'] as string[]) = (parseArgument(value, 'stringList') as string[]).map(String);
    } else if (STRING_ARGS.has(key)) {
      marker[key as 'namespace'] = String(parseArgument(value, 'string'));
    } else {
      fail(`unknown argument "${key}"`);
    }
  }
  if (marker.verbs.length === 0) fail('missing verbs');
  return marker;
}

/** Finds every rbac marker in the comment lines of one file's text. */
export function rbacMarkersInText(text: string, file: string): RbacMarker[] {
  const markers: RbacMarker[] = [];
  text.split('\n').forEach((line, index) => {
    const comment = /^\s*(?:\/\/+|\/?\*+)\s*(\+kubebuilder:rbac:.*?)\s*(?:\*\/)?\s*$/.exec(line);
    if (comment) markers.push(parseRbacMarker(comment[1]!, { file, line: index + 1 }));
  });
  return markers;
}

async function tsFiles(dir: string): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const out: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...(await tsFiles(full)));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Every rbac marker in `<root>/src/**\/*.ts`, in file and line order. */
export async function collectRbacMarkers(root: string, sourceDir = 'src'): Promise<RbacMarker[]> {
  const files = (await tsFiles(path.join(root, sourceDir))).sort();
  const markers: RbacMarker[] = [];
  for (const file of files) {
    const text = await fs.readFile(file, 'utf8');
    if (!text.includes(PREFIX)) continue;
    markers.push(...rbacMarkersInText(text, path.relative(root, file).split(path.sep).join('/')));
  }
  return markers;
}
