/** Types of tutorials.mjs: the book's tutorials as steps. */
export type TutorialStep = { run: string[] } | { edit: string };
export declare const TUTORIALS: Record<string, { page: string; from?: string; steps: TutorialStep[] }>;
export declare const TUTORIAL_NAMES: string[];
