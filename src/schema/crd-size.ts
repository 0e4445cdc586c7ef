/**
 * How big a CRD may be for client-side `kubectl apply`. Client-side apply stores the whole object
 * as JSON in the `kubectl.kubernetes.io/last-applied-configuration` annotation, and the apiserver
 * refuses an object whose annotations add up to more than 256 KiB ("metadata.annotations: Too long:
 * may not be more than 262144 bytes"). Server-side apply (`kop install`, `kop deploy`, `kubectl
 * apply --server-side`) and create/replace (`kop dev`, Helm) keep no such copy and have no such limit.
 */
import type { CustomResourceDefinition } from './crd-types.js';

/** The apiserver's cap on the total size of an object's annotations (keys and values), in bytes. */
export const ANNOTATIONS_SIZE_LIMIT = 262_144;

/** The annotation client-side `kubectl apply` writes, holding the object as JSON. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** What installs a CRD of any size: said wherever kop suggests how to install CRDs. */
export const LARGE_CRD_INSTALL_HINT = '`kop install`, or `kubectl apply --server-side -k config/crd`';

/**
 * The bytes of annotations client-side `kubectl apply` would give this CRD: the compact JSON of
 * the object (which is what kubectl stores) plus the annotation's key and the annotations already there.
 */
export function clientSideApplyAnnotationBytes(crd: CustomResourceDefinition): number {
  const existing = Object.entries(crd.metadata.annotations ?? {}).reduce(
    (sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value),
    0,
  );
  return Buffer.byteLength(LAST_APPLIED_ANNOTATION) + Buffer.byteLength(JSON.stringify(crd)) + existing;
}

/** True when client-side `kubectl apply` of this CRD would be refused for the size of its annotations. */
export function tooLargeForClientSideApply(crd: CustomResourceDefinition): boolean {
  return clientSideApplyAnnotationBytes(crd) > ANNOTATIONS_SIZE_LIMIT;
}

/** `712 KiB`: a size as a user reads it. */
export function formatKiB(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KiB`;
}

/**
 * The warning `kop generate` prints for a CRD client-side apply would refuse: its size, what
 * works, and how to make it smaller (the project's description cap).
 */
export function largeCrdWarning(file: string, crd: CustomResourceDefinition, maxDescriptionLength?: number): string {
  const size = formatKiB(clientSideApplyAnnotationBytes(crd));
  const shrink =
    maxDescriptionLength === 0
      ? ''
      : `; to make it smaller, cap descriptions for the project with \`kop edit --max-description-length <bytes>\` (0 removes them)`;
  return (
    `${file}: the CRD is too large for client-side \`kubectl apply\` (${size} of annotations, over the apiserver's ` +
    `${formatKiB(ANNOTATIONS_SIZE_LIMIT)}); install it with ${LARGE_CRD_INSTALL_HINT}, which keep no copy in an annotation${shrink}`
  );
}
