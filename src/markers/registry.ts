/**
 * One marker registry and parser for every vocabulary kop reads — the CRD markers in API
 * types, `+kubebuilder:rbac` and `+kubebuilder:webhook` in the operator's sources — as
 * controller-tools' markers package keeps one Registry that each generator registers its
 * definitions into. A definition says where a marker may stand (package, type, field) and
 * the types of its arguments; parsing, "did you mean" suggestions and placement checks read
 * the registry, so no vocabulary restates the marker syntax. A vocabulary's definitions also
 * carry what the marker does (the CRD markers' effects on a schema: schema/markers/*.ts).
 */
import {
  argumentsUsage,
  parseArgument,
  parseNamedArguments,
  type ArgumentSpecs,
  type ArgumentType,
} from './arguments.js';
import { type JSONValue, editDistance } from '../base/index.js';
import { MarkerSyntaxError, UnknownMarkerError, type SourceLocation } from './errors.js';

/** Where a marker may appear. */
export type MarkerTarget = 'package' | 'type' | 'field';

/** The vocabularies kop reads: CRD markers in api/, rbac and webhook markers in src/. */
export type MarkerVocabulary = 'crd' | 'rbac' | 'webhook';

/** One marker kop knows. */
export interface MarkerDefinition {
  name: string;
  targets: readonly MarkerTarget[];
  /** The type of the single value after `=`; absent for flags and for markers with named arguments. */
  value?: ArgumentType;
  /** Named arguments after `name:`; `optional` ones may be left out. */
  args?: ArgumentSpecs;
  /** True when the marker may appear several times on one declaration. */
  repeatable?: boolean;
  /** True when saying the marker again on one declaration means the same as saying it once (controller-gen's flags). */
  idempotent?: boolean;
  /** Markers of other tools that kop accepts and ignores (they carry no meaning for kop's output). */
  ignored?: boolean;
}

/** A definition as registered: with the vocabulary that registered it. */
export interface RegisteredMarker extends MarkerDefinition {
  vocabulary: MarkerVocabulary;
}

/** A parsed marker occurrence. */
export interface Marker {
  name: string;
  /** The single value (`+name=value`); `true` for a flag. */
  value: JSONValue;
  /** Named arguments (`+name:key=value`). */
  args: Record<string, JSONValue>;
  /** The marker text as written, without the leading `+`. */
  raw: string;
  location: SourceLocation;
}

/** True for a comment line that is a marker: `+` directly followed by a letter. */
export function isMarkerLine(text: string): boolean {
  return /^\+[A-Za-z]/.test(text.trim());
}

/**
 * True when the marker text continues after the name `raw.slice(0, end)` with `:=`, controller-gen's
 * alternate spelling of `=` for a marker with one value (`+kubebuilder:default:=Allow`).
 */
function isAlternateValue(raw: string, end: number, definition: MarkerDefinition): boolean {
  return definition.value !== undefined && raw.startsWith(':=', end);
}

/** How to write a marker, for hints: `+name`, `+name=<type>` or `+name:key=<type>,[optional=<type>]`. */
export function markerUsage(definition: MarkerDefinition): string {
  if (definition.args) return `+${definition.name}:${argumentsUsage(definition.args)}`;
  if (definition.value) return `+${definition.name}=<${definition.value}>`;
  return `+${definition.name}`;
}

/** Definitions by name; each vocabulary registers its own, and a name belongs to one vocabulary. */
export class MarkerRegistry {
  private readonly byName = new Map<string, RegisteredMarker>();

  /** Adds a vocabulary's definitions. Registering a name twice is a programming error. */
  register(vocabulary: MarkerVocabulary, definitions: readonly MarkerDefinition[]): void {
    for (const definition of definitions) {
      const existing = this.byName.get(definition.name);
      if (existing)
        throw new Error(`marker ${definition.name} is registered twice (${existing.vocabulary}, ${vocabulary})`);
      this.byName.set(definition.name, { ...definition, vocabulary });
    }
  }

  /** The definition named exactly `name`, if registered (in `vocabulary`, when given). */
  definition(name: string, vocabulary?: MarkerVocabulary): RegisteredMarker | undefined {
    const found = this.byName.get(name);
    return found && (vocabulary === undefined || found.vocabulary === vocabulary) ? found : undefined;
  }

  /** Every registered definition (of `vocabulary`, when given), in registration order. */
  definitions(vocabulary?: MarkerVocabulary): RegisteredMarker[] {
    return [...this.byName.values()].filter((d) => vocabulary === undefined || d.vocabulary === vocabulary);
  }

  /**
   * The definition a marker text (without `+`) names: the longest registered name the text
   * starts with, ending at a `:` (only markers with named arguments continue after it) or
   * at the end of the name, as controller-tools' Registry.Lookup matches. So
   * `kubebuilder:validation:items:Minimum` is not read as `kubebuilder:validation` with arguments.
   */
  lookup(raw: string, vocabulary?: MarkerVocabulary): RegisteredMarker | undefined {
    const head = raw.split('=', 1)[0]!;
    for (let end = head.length; end > 0; end = head.lastIndexOf(':', end - 1)) {
      const found = this.definition(head.slice(0, end), vocabulary);
      if (found && (found.args !== undefined || end === head.length || isAlternateValue(raw, end, found))) return found;
    }
    return undefined;
  }

  /**
   * Parses one marker line (the comment text starting with `+`) against the definitions of
   * `vocabulary`. An unknown marker is an UnknownMarkerError that names the nearest known
   * one when there is one close enough; bad arguments are a MarkerSyntaxError that says how
   * to write the marker.
   */
  parse(text: string, location: SourceLocation, vocabulary: MarkerVocabulary, unknownHint?: string): Marker {
    const raw = text.trim().slice(1);
    const definition = this.lookup(raw, vocabulary);
    if (!definition) throw this.unknown(raw, location, vocabulary, unknownHint);
    const rest = raw.slice(definition.name.length);
    const marker: Marker = { name: definition.name, value: true, args: {}, raw, location };
    const fail = (problem: string): never => {
      throw new MarkerSyntaxError(location, `+${definition.name}`, problem, `write it as ${markerUsage(definition)}`);
    };
    if (definition.args) {
      if (rest === '') {
        const missing = Object.entries(definition.args).filter(([, a]) => !a.optional);
        if (missing.length > 0) fail(`missing argument ${missing.map(([k]) => k).join(', ')}`);
        return marker;
      }
      if (!rest.startsWith(':')) fail(`expected ":" after the marker name`);
      marker.args = parseNamedArguments(rest.slice(1), definition.args, fail);
      return marker;
    }
    if (rest === '') {
      if (definition.value !== undefined && definition.value !== 'bool') fail('missing value');
      return marker;
    }
    if (!rest.startsWith('=') && !isAlternateValue(raw, definition.name.length, definition))
      fail(`unexpected "${rest}"`);
    if (definition.value === undefined) fail('this marker is a flag and takes no value');
    try {
      marker.value = parseArgument(rest.slice(rest.indexOf('=') + 1), definition.value!);
    } catch (error) {
      fail((error as Error).message);
    }
    return marker;
  }

  /**
   * The error for a marker text (without `+`) that names no marker of `vocabulary`: with the
   * nearest known name when one is close enough, and saying so when the marker belongs to
   * another vocabulary (an rbac marker in an API types file, which only src/ is read for) —
   * known when that vocabulary's module is loaded, as `kop generate` loads all three.
   */
  unknown(raw: string, location: SourceLocation, vocabulary: MarkerVocabulary, hint?: string): UnknownMarkerError {
    const head = raw.split('=', 1)[0]!;
    const elsewhere = this.lookup(raw);
    if (elsewhere) {
      return new UnknownMarkerError(
        location,
        `+${head}`,
        `this is ${{ crd: 'a CRD', rbac: 'an rbac', webhook: 'a webhook' }[elsewhere.vocabulary]} marker, which kop does not read here`,
        elsewhere.vocabulary === 'crd'
          ? 'put it in an API types file under api/'
          : `put it in a comment of a file under src/ (a reconciler or main.ts)`,
      );
    }
    const nearest = this.nearest(head, vocabulary);
    // rbac and webhook markers are named by their first two segments (`+kubebuilder:rbacs`), not their first argument.
    const subject = `+${vocabulary === 'crd' ? head : (/^[^=:,\s]*(?::[^=:,\s]*)?/.exec(raw)?.[0] ?? head)}`;
    return new UnknownMarkerError(
      location,
      subject,
      'kop does not know this marker',
      nearest
        ? `did you mean ${nearest.args && vocabulary !== 'crd' ? `+${nearest.name}:...` : `+${nearest.name}`}? kop never ignores a marker silently`
        : (hint ??
            `check the spelling against the markers in the README (controller-gen's vocabulary); kop never ignores a marker silently`),
    );
  }

  /**
   * The registered name closest to a misspelt one (`kubebuilder:validation:Maximun` gives
   * `kubebuilder:validation:Maximum`, `kubebuilder:rbacs:groups` gives `kubebuilder:rbac`),
   * when it is close enough to be the one meant: case-insensitive edit distance at most a
   * third of the compared name's last segment, and at most 3. The whole name is compared,
   * and so are its shorter forms ending at a `:`, for markers whose arguments follow a `:`.
   */
  nearest(misspelt: string, vocabulary?: MarkerVocabulary): RegisteredMarker | undefined {
    const wanted = misspelt.toLowerCase();
    const forms = [wanted];
    for (let end = wanted.lastIndexOf(':'); end > 0; end = wanted.lastIndexOf(':', end - 1))
      forms.push(wanted.slice(0, end));
    let best: { definition: RegisteredMarker; distance: number } | undefined;
    for (const [index, form] of forms.entries()) {
      const lastSegment = form.slice(form.lastIndexOf(':') + 1);
      const limit = Math.min(3, Math.max(1, Math.floor(lastSegment.length / 3)));
      for (const definition of this.definitions(vocabulary)) {
        // Shorter forms stand only for markers whose named arguments follow the name.
        if (index > 0 && definition.args === undefined) continue;
        const distance = editDistance(form, definition.name.toLowerCase(), limit);
        // A shorter form equal to a name is that marker with wrong arguments, not a misspelling.
        if (index > 0 && distance === 0) continue;
        if (distance <= limit && (!best || distance < best.distance)) best = { definition, distance };
      }
      if (best) break;
    }
    return best?.definition;
  }
}

/**
 * The registry every vocabulary registers into when its module loads (schema/markers.ts,
 * rbac/rbac-markers.ts, webhook/webhook-markers.ts), as controller-gen's generators register
 * into one registry.
 */
export const markerRegistry = new MarkerRegistry();
