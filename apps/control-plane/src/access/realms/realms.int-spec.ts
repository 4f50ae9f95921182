import { addUser, basic, call, dataOf, expectError, grant, write } from '../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { PASSWORD } from '../acl/acl.fixture.js';
import { RealmRow } from '../entities/realm.entity.js';
import { RealmsModule } from './realms.module.js';

const ISSUER = 'https://issuer.example.test';

describe('/access/domains', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      imports: [RealmsModule],
      env: { CORRAL_OIDC_ISSUER: ISSUER, CORRAL_OIDC_AUDIENCE: 'corral', CORRAL_OIDC_REALM: 'sso' },
    });
    await addUser(t, 'auditor@pve', { password: PASSWORD });
    await grant(t, { path: '/', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
  });
  afterAll(() => t.close());

  const realms = () => t.dataSource.manager.find(RealmRow, { order: { realm: 'ASC' } });
  const domains = async () => dataOf<{ realm: string; default?: number }[]>(await t.api.get('/access/domains'));

  it('lists the realms without credentials, comments only where set, as PVE', async () => {
    const rows = await realms();
    expect(rows.map((r) => r.realm)).toEqual(['pam', 'pve', 'sso']);
    expect(await domains()).toEqual(rows.map(({ realm, type, comment }) => ({ realm, type, ...(comment ? { comment } : {}) })));
  });

  it("reads a realm's settings for Sys.Audit on /access/realm, the configured oidc realm with its issuer", async () => {
    expect(dataOf(await call(t, 'GET', '/access/domains/pve', { as: basic('auditor@pve', PASSWORD) }))).toEqual({
      type: 'pve',
      comment: 'Corral authentication server',
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(dataOf(await call(t, 'GET', '/access/domains/sso'))).toEqual({
      type: 'oidc',
      comment: `OAuth 2.0 issuer ${ISSUER}`,
      autocreate: 0,
      'issuer-url': ISSUER,
      'client-id': 'corral',
      'username-claim': 'sub',
      digest: expect.any(String),
    });
    expectError(await call(t, 'GET', '/access/domains/nowhere'), 404, "domain 'nowhere' does not exist");
  });

  it('creates an openid realm as an oidc one, one default at a time', async () => {
    dataOf(
      await call(t, 'POST', '/access/domains', {
        form: { realm: 'corp', type: 'openid', comment: 'Corporate', default: 1, autocreate: 1 },
      }),
    );
    expect(await realms()).toContainEqual({ realm: 'corp', type: 'oidc', comment: 'Corporate', isDefault: true, autocreate: true });
    dataOf(await call(t, 'POST', '/access/domains', { form: { realm: 'corp2', type: 'oidc', default: 1 } }));
    expect((await domains()).filter((d) => d.default === 1).map((d) => d.realm)).toEqual(['corp2']);
    expect(dataOf(await call(t, 'GET', '/access/domains/corp'))).toEqual({
      type: 'oidc',
      comment: 'Corporate',
      autocreate: 1,
      digest: expect.any(String),
    });
  });

  it("refuses PVE's way: an existing realm, the built-in names and types; ldap and ad with a 400 saying so", async () => {
    expectError(await call(t, 'POST', '/access/domains', { form: { realm: 'corp', type: 'openid' } }), 409, "domain 'corp' already exists");
    expectError(await call(t, 'POST', '/access/domains', { form: { realm: 'pam', type: 'openid' } }), 409, "domain 'pam' already exists");
    expectError(
      await call(t, 'POST', '/access/domains', { form: { realm: 'local', type: 'pve' } }),
      400,
      "unable to create builtin type 'pve'",
      'type',
    );
    expectError(
      await call(t, 'POST', '/access/domains', { form: { realm: 'dir', type: 'ldap' } }),
      400,
      'ldap realms are not served',
      'type',
    );
    expectError(
      await call(t, 'POST', '/access/domains', { form: { realm: 'dir', type: 'ad', server1: 'dc.example.test' } }),
      400,
      'a setting of ldap and ad realms',
      'server1',
    );
    expectError(
      await call(t, 'POST', '/access/domains', { form: { realm: 'dir', type: 'openid', 'issuer-url': ISSUER } }),
      400,
      'OpenID Connect login, which is not built',
      'issuer-url',
    );
    expectError(
      await call(t, 'POST', '/access/domains', { form: { realm: 'dir', type: 'openid', tfa: 'type=oath' } }),
      400,
      'two-factor authentication is not built',
      'tfa',
    );
    expectError(await call(t, 'POST', '/access/domains', { form: { realm: '1bad', type: 'openid' } }), 400, 'must be a letter', 'realm');
    expect((await realms()).map((r) => r.realm)).not.toContain('dir');
    expect((await realms()).map((r) => r.realm)).not.toContain('local');
  });

  it('changes settings with delete and digest; autocreate only on oidc realms', async () => {
    const { digest } = dataOf<{ digest: string }>(await call(t, 'GET', '/access/domains/pam'));
    dataOf(await call(t, 'PUT', '/access/domains/pam', { form: { comment: 'Root', default: 1, digest } }));
    expect((await domains()).filter((d) => d.default === 1).map((d) => d.realm)).toEqual(['pam']);
    expectError(
      await call(t, 'PUT', '/access/domains/pam', { form: { comment: 'stale', digest } }),
      409,
      'detected modified configuration',
    );
    dataOf(await call(t, 'PUT', '/access/domains/pam', { form: { delete: 'comment,default' } }));
    expect(await realms()).toContainEqual(expect.objectContaining({ realm: 'pam', comment: '', isDefault: false }));
    expectError(
      await call(t, 'PUT', '/access/domains/pve', { form: { autocreate: 1 } }),
      400,
      'pve realms do not create users',
      'autocreate',
    );
    expectError(
      await call(t, 'PUT', '/access/domains/corp', { form: { comment: 'x', delete: 'comment' } }),
      400,
      "cannot set and delete 'comment'",
      'delete',
    );
    expectError(await call(t, 'PUT', '/access/domains/corp', { form: { bind_dn: 'cn=x' } }), 400, 'ldap and ad realms', 'bind_dn');
    dataOf(await call(t, 'PUT', '/access/domains/corp', { form: { delete: 'autocreate' } }));
    expect(await realms()).toContainEqual(expect.objectContaining({ realm: 'corp', autocreate: false }));
    expectError(await call(t, 'PUT', '/access/domains/nowhere', { form: { comment: 'x' } }), 404, "domain 'nowhere' does not exist");
  });

  it('removes a realm without users; refuses the built-in ones, the configured oidc realm and one with users', async () => {
    expectError(await call(t, 'DELETE', '/access/domains/pve'), 400, "the built-in realm 'pve' cannot be removed", 'realm');
    expectError(await call(t, 'DELETE', '/access/domains/sso'), 400, 'CORRAL_OIDC_REALM', 'realm');
    await write(t, (db) => db.insert(RealmRow, { realm: 'team', type: 'oidc' }));
    await addUser(t, 'ann@team');
    expectError(await call(t, 'DELETE', '/access/domains/team'), 409, "realm 'team' still has users (ann@team)");
    dataOf(await call(t, 'DELETE', '/access/domains/corp2'));
    expect((await realms()).map((r) => r.realm)).toEqual(['corp', 'pam', 'pve', 'sso', 'team']);
    expectError(await call(t, 'DELETE', '/access/domains/corp2'), 404, "authentication domain 'corp2' does not exist");
  });

  it('needs Realm.Allocate on /access/realm to change realms', async () => {
    expect(
      (await call(t, 'POST', '/access/domains', { form: { realm: 'nope', type: 'openid' }, as: basic('auditor@pve', PASSWORD) })).status,
    ).toBe(403);
    expect((await call(t, 'DELETE', '/access/domains/corp', { as: basic('auditor@pve', PASSWORD) })).status).toBe(403);
  });
});
