import type { RestClient } from '../../src/runtime/client/index.js';

const ADMISSION = '/apis/admissionregistration.k8s.io/v1';

/** What {@link refuseUpdatesOfLabelled} refuses and how it checks that the refusal is in force. */
export interface LabelRefusal {
  /** Name of the policy and of its binding. */
  name: string;
  group: string;
  /** The resource (plural) whose updates are refused. */
  resource: string;
  /** Objects carrying this label key are refused any update. */
  label: string;
  /** The refusal's message. */
  message: string;
  /** Path of an object (at a served version) that carries the label: patched until the apiserver refuses it. */
  probePath: string;
}

/**
 * Makes the apiserver refuse every update of the labelled objects of a resource, with a
 * ValidatingAdmissionPolicy and its binding (the apiserver's own refusal, no webhook to run), and
 * waits until it does: a policy takes effect a second or two after it is created. Returns a
 * function that removes both.
 */
export async function refuseUpdatesOfLabelled(rest: RestClient, refusal: LabelRefusal): Promise<() => Promise<void>> {
  const { name, group, resource, label, message, probePath } = refusal;
  await rest.post(`${ADMISSION}/validatingadmissionpolicies`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [{ apiGroups: [group], apiVersions: ['*'], operations: ['UPDATE'], resources: [resource] }],
      },
      validations: [{ expression: `!has(object.metadata.labels) || !('${label}' in object.metadata.labels)`, message }],
    },
  });
  await rest.post(`${ADMISSION}/validatingadmissionpolicybindings`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName: name, validationActions: ['Deny'] },
  });
  for (let i = 0; ; i++) {
    try {
      await rest.patch(probePath, { metadata: { annotations: { probe: String(i) } } }, 'application/merge-patch+json');
    } catch (err) {
      if (String(err).includes(message)) break;
      throw err;
    }
    if (i > 100) throw new Error(`the admission policy ${name} never took effect`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return async () => {
    await rest.delete(`${ADMISSION}/validatingadmissionpolicybindings/${name}`);
    await rest.delete(`${ADMISSION}/validatingadmissionpolicies/${name}`);
  };
}
