import type { Context, PromptQuestion } from './context.js';
import { UsageError } from './errors.js';

/** A check usable as a prompt validator: `true` when valid, otherwise what a valid value is. */
export type NameCheck = (value: string) => true | string;

/** Throws a UsageError naming `flag` when `check` rejects `value`; returns the value otherwise. */
export function requireValid(check: NameCheck, value: string, flag: string): string {
  const result = check(value);
  if (result !== true) throw new UsageError(`${flag}: ${result}`);
  return value;
}

/**
 * The flag's value when given, otherwise the prompter's answer (checked as it is typed);
 * either way it must pass `check`, or a UsageError names `question.flag`.
 */
export async function askChecked(
  context: Pick<Context, 'prompter'>,
  given: string | undefined,
  check: NameCheck,
  question: PromptQuestion,
): Promise<string> {
  const value = given ?? String(await context.prompter.ask({ ...question, validate: check }));
  return requireValid(check, value, question.flag);
}

/** The flag's value when given, otherwise a yes/no answer from the prompter. */
export async function askYesNo(
  context: Pick<Context, 'prompter'>,
  given: boolean | undefined,
  question: PromptQuestion,
): Promise<boolean> {
  if (given !== undefined) return given;
  const answer = await context.prompter.ask(question);
  return answer === true || answer === 'true' || answer === 'y' || answer === 'yes';
}
