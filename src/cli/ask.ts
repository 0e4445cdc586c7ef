import type { NameCheck } from '../project/resource.js';
import { requireValid } from '../project/resource.js';
import type { Context, PromptQuestion } from './context.js';

/**
 * The flag's value when given, otherwise the prompter's answer (checked as it is typed);
 * either way it must pass `check`, or a UsageError names `question.flag`.
 */
export async function askChecked(context: Pick<Context, 'prompter'>, given: string | undefined, check: NameCheck, question: PromptQuestion): Promise<string> {
  const value = given ?? String(await context.prompter.ask({ ...question, validate: check }));
  return requireValid(check, value, question.flag);
}

/** The flag's value when given, otherwise a yes/no answer from the prompter. */
export async function askYesNo(context: Pick<Context, 'prompter'>, given: boolean | undefined, question: PromptQuestion): Promise<boolean> {
  if (given !== undefined) return given;
  const answer = await context.prompter.ask(question);
  return answer === true || answer === 'true' || answer === 'y' || answer === 'yes';
}
