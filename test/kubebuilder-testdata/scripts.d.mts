/** Types of scripts.mjs: Kubebuilder's testdata script as data. */
export declare const KUBEBUILDER_SCRIPT_VERSION: string;
export type ProjectName = 'project-v4' | 'project-v4-multigroup' | 'project-v4-with-plugins';
export declare const PROJECT_NAMES: readonly ProjectName[];
/** A make target the script runs between commands. */
export interface MakeStep {
  make: 'all' | 'build-installer';
}
/** Per project, command lines (argv, `kop` first) and make steps, in the script's order. */
export declare const KUBEBUILDER_SCRIPTS: Record<ProjectName, Array<string[] | MakeStep>>;
