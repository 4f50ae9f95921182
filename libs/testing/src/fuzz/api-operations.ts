/** A JSON schema as the OpenAPI document gives one parameter. */
export type ParamSchema = Readonly<Record<string, unknown>>;

/** One declared endpoint as the fuzzer drives it: where its parameters go and what each one wants. */
export interface ApiOperation {
  readonly method: string;
  /** With `{placeholders}`, relative to `/api2/json`. */
  readonly path: string;
  readonly pathParams: readonly string[];
  /** Query parameters (GET, DELETE) or body parameters (POST, PUT), by name. */
  readonly params: Readonly<Record<string, ParamSchema>>;
  readonly required: readonly string[];
  /** A multipart upload, whose body the fuzzer sends as a form all the same. */
  readonly upload: boolean;
}

interface OpenApiParameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema?: ParamSchema;
}

interface OpenApiOperation {
  readonly parameters?: readonly OpenApiParameter[];
  readonly requestBody?: {
    readonly content: Record<string, { readonly schema: { properties?: Record<string, ParamSchema>; required?: string[] } }>;
  };
}

/** Every operation of an OpenAPI 3.1 document the control plane serves, in the document's order. */
export function apiOperations(document: { paths: Record<string, Record<string, OpenApiOperation>> }): ApiOperation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]): ApiOperation => {
      const declared = operation.parameters ?? [];
      const content = operation.requestBody?.content ?? {};
      const body = Object.values(content)[0]?.schema ?? {};
      const params: Record<string, ParamSchema> = { ...body.properties };
      const required = [...(body.required ?? [])];
      for (const param of declared.filter((p) => p.in === 'query')) {
        params[param.name] = param.schema ?? {};
        if (param.required) required.push(param.name);
      }
      return {
        method: method.toUpperCase(),
        // The document writes a rest-of-path placeholder `{name+}` as `{name}`; either is filled the same way.
        path,
        pathParams: declared.filter((p) => p.in === 'path').map((p) => p.name),
        params,
        required,
        upload: 'multipart/form-data' in content,
      };
    }),
  );
}
