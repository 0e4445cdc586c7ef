/**
 * Any JSON value: what a marker argument, a schema default, an example or an enum member holds.
 * kop/api declares its own for users' types, because the library side imports nothing of the CLI.
 */
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };
