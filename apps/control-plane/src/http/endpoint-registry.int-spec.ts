import { Controller, Get } from '@nestjs/common';
import { z } from 'zod';
import { startTestApp } from '../../test-support/test-app.js';
import { OpenApiModule } from '../openapi/openapi.module.js';
import { VersionModule } from '../version/version.module.js';
import { Endpoint, endpoint } from './endpoint.js';
import { API_PREFIX, EndpointRegistry } from './endpoint-registry.js';

@Controller()
class UndeclaredController {
  @Get('plain')
  plain(): null {
    return null;
  }
}

const twice = endpoint({
  method: 'GET',
  path: '/twice',
  summary: 's',
  parameters: z.object({}),
  returns: z.null(),
  permission: { kind: 'public' },
});
@Controller()
class DuplicateController {
  @Endpoint(twice)
  one(): null {
    return null;
  }

  @Endpoint(twice)
  two(): null {
    return null;
  }
}

const unnamed = endpoint({
  method: 'GET',
  path: '/things/{id}',
  summary: 's',
  parameters: z.object({}),
  returns: z.null(),
  permission: { kind: 'public' },
});
@Controller()
class UndeclaredPlaceholderController {
  @Endpoint(unnamed)
  get(): null {
    return null;
  }
}

describe('endpoint declarations', () => {
  it('covers every route the router serves: each has exactly one declaration', async () => {
    const t = await startTestApp({ imports: [VersionModule, OpenApiModule] });
    try {
      // Fastify's own route table, independent of the registry's walk over the controllers.
      const tree = t.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
      const served = [...tree.matchAll(/(\/\S*) \(([A-Z, ]+)\)/g)]
        .flatMap(([, path, methods]) => (methods ?? '').split(', ').map((method) => `${method} ${path}`))
        .filter((route) => !route.startsWith('HEAD '))
        .sort();
      const declared = t.app
        .get(EndpointRegistry)
        .declarations.map((d) => `${d.method} ${API_PREFIX}${d.path.replace(/\{([^}]+)\}/g, ':$1')}`)
        .sort();
      expect(served).toEqual(declared);
      expect(declared).toEqual(['GET /api2/json/openapi.json', 'GET /api2/json/version']);
    } finally {
      await t.close();
    }
  });

  it('refuses to start when a route has no declaration', async () => {
    await expect(startTestApp({ controllers: [UndeclaredController] })).rejects.toThrow(
      'UndeclaredController.plain is a route without an endpoint declaration (use @Endpoint)',
    );
  });

  it('refuses to start when a path is declared twice', async () => {
    await expect(startTestApp({ controllers: [DuplicateController] })).rejects.toThrow(
      "Method 'GET' already declared for route '/api2/json/twice'",
    );
  });

  it('refuses to start when a path placeholder is not a declared parameter', async () => {
    await expect(startTestApp({ controllers: [UndeclaredPlaceholderController] })).rejects.toThrow(
      'GET /things/{id}: path placeholder {id} is not a declared parameter',
    );
  });
});
