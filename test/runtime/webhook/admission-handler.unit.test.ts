import { describe, expect, it } from 'vitest';
import type { ResourceType } from '../../../src/runtime/index.js';
import { silentLogger } from '../../../src/runtime/index.js';
import type {
  AdmissionContext,
  AdmissionResponse,
  Defaulter,
  Validator,
} from '../../../src/runtime/webhook/admission.js';
import { defaultingHandler, validatingHandler } from '../../../src/runtime/webhook/admission-handler.js';
import { FieldError, ValidationError } from '../../../src/runtime/webhook/field-error.js';
import type { WebhookHandler, WebhookReply } from '../../../src/runtime/webhook/webhook-handler.js';
import { applyJsonPatch } from './apply-json-patch.js';

interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: { size?: number; mode?: string; tags?: string[] };
}
const widgetType: ResourceType<Widget> = {
  group: 'test.kop.dev',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  namespaced: true,
};

function review(request: Record<string, unknown>): unknown {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: 'test.kop.dev', version: 'v1', kind: 'Widget' },
      resource: { group: 'test.kop.dev', version: 'v1', resource: 'widgets' },
      userInfo: { username: 'alice' },
      namespace: 'ns',
      name: 'w',
      ...request,
    },
  };
}

async function call(
  handler: WebhookHandler,
  body: unknown,
  signal = new AbortController().signal,
): Promise<WebhookReply> {
  return handler({ body, url: new URL('https://x/validate?timeout=10s'), signal, logger: silentLogger });
}

function responseOf(reply: WebhookReply): AdmissionResponse {
  expect(reply.status).toBe(200);
  const body = reply.body as { apiVersion: string; kind: string; response: AdmissionResponse };
  expect(body.apiVersion).toBe('admission.k8s.io/v1');
  expect(body.kind).toBe('AdmissionReview');
  return body.response;
}

function patchOf(response: AdmissionResponse): { op: string; path: string; value?: unknown }[] {
  expect(response.patchType).toBe('JSONPatch');
  return JSON.parse(Buffer.from(response.patch!, 'base64').toString('utf8')) as {
    op: string;
    path: string;
    value?: unknown;
  }[];
}

const widget: Widget = {
  apiVersion: 'test.kop.dev/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns' },
  spec: { tags: ['a'] },
};

describe('defaultingHandler', () => {
  const defaulter: Defaulter<Widget> = {
    default(object) {
      object.spec ??= {};
      object.spec.size ??= 3;
      object.spec.tags = [...(object.spec.tags ?? []), 'defaulted'];
      object.metadata!.labels = { ...object.metadata!.labels, 'app.kubernetes.io/managed-by': 'kop' };
    },
  };

  it('answers the patch from the object to the defaulted copy, which applied gives the defaulted object', async () => {
    const response = responseOf(
      await call(defaultingHandler(widgetType, defaulter), review({ operation: 'CREATE', object: widget })),
    );
    expect(response).toMatchObject({ uid: 'uid-1', allowed: true });
    const patch = patchOf(response);
    expect(patch).toEqual([
      { op: 'add', path: '/metadata/labels', value: { 'app.kubernetes.io/managed-by': 'kop' } },
      { op: 'add', path: '/spec/tags/1', value: 'defaulted' },
      { op: 'add', path: '/spec/size', value: 3 },
    ]);
    expect(applyJsonPatch(widget, patch)).toEqual({
      ...widget,
      metadata: { ...widget.metadata, labels: { 'app.kubernetes.io/managed-by': 'kop' } },
      spec: { tags: ['a', 'defaulted'], size: 3 },
    });
  });

  it('defaults a copy: the request object is left as it came', async () => {
    const body = review({ operation: 'UPDATE', object: structuredClone(widget), oldObject: widget }) as {
      request: { object: Widget };
    };
    await call(defaultingHandler(widgetType, defaulter), body);
    expect(body.request.object).toEqual(widget);
  });

  it('no change means no patch', async () => {
    const response = responseOf(
      await call(defaultingHandler(widgetType, { default() {} }), review({ operation: 'CREATE', object: widget })),
    );
    expect(response).toEqual({ uid: 'uid-1', allowed: true });
  });

  it('a property set to undefined is removed, as the apiserver will read the JSON', async () => {
    const response = responseOf(
      await call(
        defaultingHandler(widgetType, {
          default(object) {
            object.spec!.tags = undefined;
          },
        }),
        review({ operation: 'CREATE', object: widget }),
      ),
    );
    expect(patchOf(response)).toEqual([{ op: 'remove', path: '/spec/tags' }]);
  });

  it('an async defaulter is awaited and gets the context', async () => {
    let seen: AdmissionContext | undefined;
    const response = responseOf(
      await call(
        defaultingHandler(widgetType, {
          async default(object, context) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            seen = context;
            object.spec!.mode = context.dryRun ? 'dry' : 'wet';
          },
        }),
        review({ operation: 'CREATE', object: widget, dryRun: true }),
      ),
    );
    expect(patchOf(response)).toEqual([{ op: 'add', path: '/spec/mode', value: 'dry' }]);
    expect(seen).toMatchObject({
      operation: 'CREATE',
      uid: 'uid-1',
      dryRun: true,
      namespace: 'ns',
      name: 'w',
      userInfo: { username: 'alice' },
    });
    expect(seen?.request.uid).toBe('uid-1');
  });

  it('DELETE and CONNECT are admitted without calling the defaulter', async () => {
    const handler = defaultingHandler(widgetType, {
      default() {
        throw new Error('must not run');
      },
    });
    expect(responseOf(await call(handler, review({ operation: 'DELETE', oldObject: widget })))).toEqual({
      uid: 'uid-1',
      allowed: true,
    });
    expect(responseOf(await call(handler, review({ operation: 'CONNECT', object: {} })))).toEqual({
      uid: 'uid-1',
      allowed: true,
    });
  });

  it('a throw in the defaulter is a 403 denial with its message; a ValidationError a 422', async () => {
    const throwing = defaultingHandler(widgetType, {
      default() {
        throw new Error('the cluster is read-only today');
      },
    });
    expect(responseOf(await call(throwing, review({ operation: 'CREATE', object: widget })))).toEqual({
      uid: 'uid-1',
      allowed: false,
      status: { status: 'Failure', code: 403, reason: 'Forbidden', message: 'the cluster is read-only today' },
    });
    const invalid = defaultingHandler(widgetType, {
      default() {
        throw new ValidationError(FieldError.required('spec.size'));
      },
    });
    expect(responseOf(await call(invalid, review({ operation: 'CREATE', object: widget }))).status).toMatchObject({
      code: 422,
      reason: 'Invalid',
    });
  });
});

describe('validatingHandler', () => {
  const calls: string[] = [];
  const validator: Validator<Widget> = {
    validateCreate(object) {
      calls.push(`create ${object.spec?.size}`);
      if ((object.spec?.size ?? 1) < 1)
        throw new ValidationError([
          FieldError.invalid('spec.size', object.spec?.size, 'must be at least 1'),
          FieldError.required('spec.mode'),
        ]);
      return ['size is small'];
    },
    validateUpdate(oldObject, newObject) {
      calls.push(`update ${oldObject.spec?.size}->${newObject.spec?.size}`);
      if (newObject.spec?.size !== oldObject.spec?.size)
        throw new ValidationError(FieldError.forbidden('spec.size', 'may not change'));
    },
    validateDelete(object) {
      calls.push(`delete ${object.metadata?.name}`);
      throw new Error('widgets are forever');
    },
  };
  const handler = validatingHandler(widgetType, validator);
  const cases: {
    name: string;
    given: Record<string, unknown>;
    want: { response: AdmissionResponse; calls: string[] };
  }[] = [
    {
      name: 'CREATE of a valid object: allowed with the warnings',
      given: { operation: 'CREATE', object: { ...widget, spec: { size: 2 } } },
      want: { response: { uid: 'uid-1', allowed: true, warnings: ['size is small'] }, calls: ['create 2'] },
    },
    {
      name: 'CREATE of an invalid object: 422 Invalid with causes and NewInvalid wording',
      given: { operation: 'CREATE', object: { ...widget, spec: { size: 0 } } },
      want: {
        response: {
          uid: 'uid-1',
          allowed: false,
          status: {
            status: 'Failure',
            code: 422,
            reason: 'Invalid',
            message:
              'Widget.test.kop.dev "w" is invalid: [spec.size: Invalid value: 0: must be at least 1, spec.mode: Required value]',
            details: {
              name: 'w',
              group: 'test.kop.dev',
              kind: 'Widget',
              causes: [
                { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be at least 1', field: 'spec.size' },
                { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.mode' },
              ],
            },
          },
        },
        calls: ['create 0'],
      },
    },
    {
      name: 'UPDATE gets old and new in that order',
      given: {
        operation: 'UPDATE',
        object: { ...widget, spec: { size: 5 } },
        oldObject: { ...widget, spec: { size: 5 } },
      },
      want: { response: { uid: 'uid-1', allowed: true }, calls: ['update 5->5'] },
    },
    {
      name: 'UPDATE denied',
      given: {
        operation: 'UPDATE',
        object: { ...widget, spec: { size: 6 } },
        oldObject: { ...widget, spec: { size: 5 } },
      },
      want: {
        response: {
          uid: 'uid-1',
          allowed: false,
          status: {
            status: 'Failure',
            code: 422,
            reason: 'Invalid',
            message: 'Widget.test.kop.dev "w" is invalid: spec.size: Forbidden: may not change',
            details: {
              name: 'w',
              group: 'test.kop.dev',
              kind: 'Widget',
              causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: may not change', field: 'spec.size' }],
            },
          },
        },
        calls: ['update 5->6'],
      },
    },
    {
      name: 'DELETE validates oldObject; another throw is 403 with its message',
      given: { operation: 'DELETE', oldObject: widget, object: null },
      want: {
        response: {
          uid: 'uid-1',
          allowed: false,
          status: { status: 'Failure', code: 403, reason: 'Forbidden', message: 'widgets are forever' },
        },
        calls: ['delete w'],
      },
    },
    {
      name: 'CONNECT is admitted',
      given: { operation: 'CONNECT', object: {} },
      want: { response: { uid: 'uid-1', allowed: true }, calls: [] },
    },
    {
      name: 'CREATE with no object is a 400 denial, the validator not called',
      given: { operation: 'CREATE', object: null },
      want: {
        response: {
          uid: 'uid-1',
          allowed: false,
          status: { status: 'Failure', code: 400, reason: 'BadRequest', message: 'CREATE review has no object' },
        },
        calls: [],
      },
    },
    {
      name: 'UPDATE without oldObject is a 400 denial',
      given: { operation: 'UPDATE', object: widget },
      want: {
        response: {
          uid: 'uid-1',
          allowed: false,
          status: {
            status: 'Failure',
            code: 400,
            reason: 'BadRequest',
            message: 'UPDATE review needs object and oldObject',
          },
        },
        calls: [],
      },
    },
    {
      name: 'DELETE without oldObject is a 400 denial',
      given: { operation: 'DELETE' },
      want: {
        response: {
          uid: 'uid-1',
          allowed: false,
          status: { status: 'Failure', code: 400, reason: 'BadRequest', message: 'DELETE review has no oldObject' },
        },
        calls: [],
      },
    },
    {
      name: 'an unknown operation is a 400 denial',
      given: { operation: 'EXPLODE', object: widget },
      want: {
        response: {
          uid: 'uid-1',
          allowed: false,
          status: { status: 'Failure', code: 400, reason: 'BadRequest', message: 'unknown operation "EXPLODE"' },
        },
        calls: [],
      },
    },
    {
      name: 'another kind than the webhook serves is a 400 denial',
      given: { operation: 'CREATE', object: widget, kind: { group: 'apps', version: 'v1', kind: 'Deployment' } },
      want: {
        response: {
          uid: 'uid-1',
          allowed: false,
          status: {
            status: 'Failure',
            code: 400,
            reason: 'BadRequest',
            message:
              'this webhook serves Widget.test.kop.dev, not Deployment.apps; check the rules of the webhook configuration',
          },
        },
        calls: [],
      },
    },
    {
      name: 'the name for the message comes from the object when the request has none (generateName)',
      given: {
        operation: 'CREATE',
        name: '',
        object: { ...widget, metadata: { name: 'from-object' }, spec: { size: -1 } },
      },
      want: {
        response: {
          uid: 'uid-1',
          allowed: false,
          status: {
            status: 'Failure',
            code: 422,
            reason: 'Invalid',
            message:
              'Widget.test.kop.dev "from-object" is invalid: [spec.size: Invalid value: -1: must be at least 1, spec.mode: Required value]',
            details: {
              name: 'from-object',
              group: 'test.kop.dev',
              kind: 'Widget',
              causes: [
                { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be at least 1', field: 'spec.size' },
                { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.mode' },
              ],
            },
          },
        },
        calls: ['create -1'],
      },
    },
  ];
  it.each(cases)('$name', async ({ given, want }) => {
    calls.length = 0;
    expect(responseOf(await call(handler, review(given)))).toEqual(want.response);
    expect(calls).toEqual(want.calls);
  });

  it('only strings are passed back as warnings', async () => {
    const loose = validatingHandler(widgetType, {
      validateCreate: () => ['a', 3, '', null, 'b'] as unknown as string[],
      validateUpdate: () => undefined,
      validateDelete: () => undefined,
    });
    expect(responseOf(await call(loose, review({ operation: 'CREATE', object: widget }))).warnings).toEqual(['a', 'b']);
  });

  it('a thrown non-Error (a string, an object) still becomes a 403 denial', async () => {
    for (const thrown of ['plain string', { weird: true }, undefined]) {
      const weird = validatingHandler(widgetType, {
        validateCreate: () => {
          throw thrown;
        },
        validateUpdate: () => undefined,
        validateDelete: () => undefined,
      });
      const response = responseOf(await call(weird, review({ operation: 'CREATE', object: widget })));
      expect(response.allowed).toBe(false);
      expect(response.status?.code).toBe(403);
    }
  });

  it('the context carries the signal of the call', async () => {
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    const spy = validatingHandler(widgetType, {
      validateCreate: (_object, context) => {
        signal = context.signal;
      },
      validateUpdate: () => undefined,
      validateDelete: () => undefined,
    });
    await call(spy, review({ operation: 'CREATE', object: widget }), controller.signal);
    controller.abort();
    expect(signal?.aborted).toBe(true);
  });
});

describe('a body that is not an AdmissionReview v1', () => {
  const handler = validatingHandler(widgetType, {
    validateCreate: () => undefined,
    validateUpdate: () => undefined,
    validateDelete: () => undefined,
  });
  it.each([
    { name: 'null', given: null },
    { name: 'an array', given: [1, 2] },
    { name: 'a string', given: 'AdmissionReview' },
    {
      name: 'v1beta1',
      given: { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: { uid: 'x' } },
    },
    {
      name: 'another kind',
      given: { apiVersion: 'admission.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'x' } },
    },
    { name: 'no request', given: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' } },
    {
      name: 'a request without uid',
      given: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { operation: 'CREATE' } },
    },
    {
      name: 'a uid that is no string',
      given: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 42 } },
    },
    {
      name: 'a request that is a list',
      given: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: [] },
    },
  ])('$name: HTTP 400 with a Status', async ({ given }) => {
    const reply = await call(handler, given);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ kind: 'Status', status: 'Failure', code: 400, reason: 'BadRequest' });
  });
});
