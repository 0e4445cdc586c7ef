/**
 * The Go settings that decide where a module comes from and how it is verified, read as the go
 * command reads them but without running it: the environment first, then the file `go env -w`
 * writes ($GOENV, else <user config dir>/go/env), then Go's defaults.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';

/** The settings kop honours. */
export interface GoEnv {
  GOPROXY: string;
  GOSUMDB: string;
  GONOSUMDB: string;
  GONOPROXY: string;
  GOPRIVATE: string;
  GOFLAGS: string;
}

const DEFAULTS: GoEnv = {
  GOPROXY: 'https://proxy.golang.org,direct',
  GOSUMDB: 'sum.golang.org',
  GONOSUMDB: '',
  GONOPROXY: '',
  GOPRIVATE: '',
  GOFLAGS: '',
};

/** The settings from `env` and the go env file; as in the go command, an empty value counts as unset. */
export function readGoEnv(env: NodeJS.ProcessEnv = process.env): GoEnv {
  const file = goEnvFile(env);
  const result = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as Array<keyof GoEnv>) {
    const value = env[key] || file[key];
    if (value) result[key] = value;
  }
  // GONOSUMDB and GONOPROXY default to GOPRIVATE, as in the go command.
  for (const key of ['GONOSUMDB', 'GONOPROXY'] as const) if (!(env[key] || file[key])) result[key] = result.GOPRIVATE;
  return result;
}

/** `KEY=value` lines of the go env file; none when it is missing or GOENV=off. */
function goEnvFile(env: NodeJS.ProcessEnv): Record<string, string> {
  if (env.GOENV === 'off') return {};
  const configHome = env.XDG_CONFIG_HOME || path.join(env.HOME || homedir(), '.config');
  const file = env.GOENV || path.join(configHome, 'go', 'env');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0 && !line.startsWith('#')) values[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return values;
}

/** GOFLAGS' `-insecure` (older Go): fetch and accept modules without checksum verification. */
export function insecureFlag(env: GoEnv): boolean {
  return env.GOFLAGS.split(/\s+/).some((f) => f === '-insecure' || f === '-insecure=true' || f === '--insecure');
}
