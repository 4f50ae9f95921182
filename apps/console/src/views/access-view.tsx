import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, ClipboardCopy, PageSection, Tab, TabTitleText, Tabs, Title } from '@patternfly/react-core';
import { call } from '../api/client';
import { usePrivileges } from '../api/privileges';
import { Collection, type CollectionSpec } from '../components/collection';
import { SelectField } from '../components/form-field';

interface User {
  readonly userid: string;
  readonly enable?: number;
  readonly email?: string;
  readonly comment?: string;
}
interface Group {
  readonly groupid: string;
  readonly comment?: string;
  readonly users?: string;
}
interface Role {
  readonly roleid: string;
  readonly privs?: string;
  readonly special?: number;
}
interface AclEntry {
  readonly path: string;
  readonly type: 'user' | 'group' | 'token';
  readonly ugid: string;
  readonly roleid: string;
  readonly propagate: number;
}
interface Token {
  readonly tokenid: string;
  readonly comment?: string;
  readonly expire?: number;
  readonly privsep?: number;
}
interface Pool {
  readonly poolid: string;
  readonly comment?: string;
}

const list =
  <T,>(path: string) =>
  () =>
    call<T[]>('GET', path);
const yesNo = (flag: number | undefined) => (flag === 0 ? 'no' : 'yes');
const userPath = (userid: string) => `/access/users/${encodeURIComponent(userid)}`;

/**
 * Users, groups, roles, the ACL, API tokens and pools, each listed as the API lets the caller see
 * them. Adding and removing are offered where the caller holds the privilege PVE checks for them.
 */
export function AccessView({ username }: { readonly username: string }) {
  const [tab, setTab] = useState('users');
  const access = usePrivileges('/access');
  const root = usePrivileges('/');
  const pools = usePrivileges('/pool');
  const users = useQuery({ queryKey: ['access', 'users'], queryFn: list<User>('/access/users') });
  const groups = useQuery({ queryKey: ['access', 'groups'], queryFn: list<Group>('/access/groups') });
  const roles = useQuery({ queryKey: ['access', 'roles'], queryFn: list<Role>('/access/roles') });
  const userOptions = (users.data ?? []).map((u) => ({ value: u.userid, label: u.userid }));
  const [tokenUser, setTokenUser] = useState('');
  const chosenTokenUser = tokenUser || username;

  const specs: Record<string, CollectionSpec<never>> = {
    users: spec<User>({
      title: 'Users',
      queryKey: ['access', 'users'],
      list: list<User>('/access/users'),
      key: (u) => u.userid,
      columns: [
        ['User', (u) => u.userid],
        ['Enabled', (u) => yesNo(u.enable)],
        ['E-mail', (u) => u.email ?? ''],
        ['Comment', (u) => u.comment ?? ''],
      ],
      create: {
        fields: [
          { param: 'userid', label: 'User (name@realm)', kind: 'text', isRequired: true, hint: 'For example alice@pve' },
          { param: 'password', label: 'Password', kind: 'password' },
          { param: 'email', label: 'E-mail', kind: 'text' },
          { param: 'comment', label: 'Comment', kind: 'text' },
        ],
        submit: (values) => call('POST', '/access/users', values),
      },
      remove: (u) => call('DELETE', userPath(u.userid)),
      mayChange: access.has('User.Modify'),
    }),
    groups: spec<Group>({
      title: 'Groups',
      queryKey: ['access', 'groups'],
      list: list<Group>('/access/groups'),
      key: (g) => g.groupid,
      columns: [
        ['Group', (g) => g.groupid],
        ['Members', (g) => g.users ?? ''],
        ['Comment', (g) => g.comment ?? ''],
      ],
      create: {
        fields: [
          { param: 'groupid', label: 'Group', kind: 'text', isRequired: true },
          { param: 'comment', label: 'Comment', kind: 'text' },
        ],
        submit: (values) => call('POST', '/access/groups', values),
      },
      remove: (g) => call('DELETE', `/access/groups/${encodeURIComponent(g.groupid)}`),
      mayChange: access.has('User.Modify'),
    }),
    roles: spec<Role>({
      title: 'Roles',
      queryKey: ['access', 'roles'],
      list: list<Role>('/access/roles'),
      key: (r) => r.roleid,
      columns: [
        ['Role', (r) => r.roleid],
        ['Built in', (r) => (r.special === 1 ? 'yes' : 'no')],
        ['Privileges', (r) => (r.privs ?? '').split(',').join(', ')],
      ],
      mayChange: false,
    }),
    acl: spec<AclEntry>({
      title: 'Permissions',
      queryKey: ['access', 'acl'],
      list: list<AclEntry>('/access/acl'),
      key: (e) => `${e.path} ${e.type} ${e.ugid} ${e.roleid}`,
      columns: [
        ['Path', (e) => e.path],
        ['User, group or token', (e) => `${e.ugid} (${e.type})`],
        ['Role', (e) => e.roleid],
        ['Propagates', (e) => yesNo(e.propagate)],
      ],
      create: {
        fields: [
          { param: 'path', label: 'Path', kind: 'text', isRequired: true, hint: '/, /vms/100, /nodes/pve1, /storage/local, /pool/dev ...' },
          { param: 'users', label: 'User', kind: 'select', options: [{ value: '', label: '(a group instead)' }, ...userOptions] },
          {
            param: 'groups',
            label: 'Group',
            kind: 'select',
            options: [
              { value: '', label: '(a user instead)' },
              ...(groups.data ?? []).map((g) => ({ value: g.groupid, label: g.groupid })),
            ],
          },
          { param: 'roles', label: 'Role', kind: 'select', options: (roles.data ?? []).map((r) => ({ value: r.roleid, label: r.roleid })) },
          { param: 'propagate', label: 'Propagate to the paths below', kind: 'checkbox', initial: true },
        ],
        submit: (values) => call('PUT', '/access/acl', values),
      },
      remove: (e) =>
        call('PUT', '/access/acl', {
          path: e.path,
          roles: e.roleid,
          [e.type === 'user' ? 'users' : e.type === 'group' ? 'groups' : 'tokens']: e.ugid,
          delete: 1,
        }),
      mayChange: root.has('Permissions.Modify'),
    }),
    tokens: spec<Token>({
      title: 'API tokens',
      queryKey: ['access', 'tokens', chosenTokenUser],
      list: () => (chosenTokenUser ? call<Token[]>('GET', `${userPath(chosenTokenUser)}/token`) : Promise.resolve([])),
      key: (t) => t.tokenid,
      columns: [
        ['Token', (t) => `${chosenTokenUser}!${t.tokenid}`],
        ['Privilege separation', (t) => yesNo(t.privsep)],
        ['Expires', (t) => (t.expire ? new Date(t.expire * 1000).toLocaleString() : 'never')],
        ['Comment', (t) => t.comment ?? ''],
      ],
      create: {
        fields: [
          { param: 'tokenid', label: 'Token id', kind: 'text', isRequired: true },
          { param: 'comment', label: 'Comment', kind: 'text' },
          {
            param: 'privsep',
            label: 'Privilege separation (the token has only what its own ACL entries give)',
            kind: 'checkbox',
            initial: true,
          },
        ],
        submit: ({ tokenid, ...rest }) =>
          call('POST', `${userPath(chosenTokenUser)}/token/${encodeURIComponent(String(tokenid ?? ''))}`, rest),
        shown: (answer) => <TokenSecret answer={answer as { 'full-tokenid': string; value: string }} />,
      },
      remove: (t) => call('DELETE', `${userPath(chosenTokenUser)}/token/${encodeURIComponent(t.tokenid)}`),
      // Everyone manages their own tokens; another user's need User.Modify.
      mayChange: chosenTokenUser === username || access.has('User.Modify'),
    }),
    pools: spec<Pool>({
      title: 'Pools',
      queryKey: ['pools'],
      list: list<Pool>('/pools'),
      key: (p) => p.poolid,
      columns: [
        ['Pool', (p) => p.poolid],
        ['Comment', (p) => p.comment ?? ''],
      ],
      create: {
        fields: [
          { param: 'poolid', label: 'Pool', kind: 'text', isRequired: true },
          { param: 'comment', label: 'Comment', kind: 'text' },
        ],
        submit: (values) => call('POST', '/pools', values),
      },
      remove: (p) => call('DELETE', `/pools/${encodeURIComponent(p.poolid)}`),
      mayChange: pools.has('Pool.Allocate'),
    }),
  };

  const titles: Record<string, string> = {
    users: 'Users',
    groups: 'Groups',
    roles: 'Roles',
    acl: 'Permissions',
    tokens: 'API tokens',
    pools: 'Pools',
  };
  return (
    <PageSection>
      <Title headingLevel="h1" className="corral-heading">
        Access
      </Title>
      <Tabs activeKey={tab} onSelect={(_event, key) => setTab(String(key))} aria-label="Access" mountOnEnter unmountOnExit>
        {Object.entries(specs).map(([key, collection]) => (
          <Tab key={key} eventKey={key} title={<TabTitleText>{titles[key]}</TabTitleText>}>
            <div className="corral-tab-body">
              {key === 'tokens' && (
                <SelectField id="token-user" label="Tokens of" value={chosenTokenUser} onChange={setTokenUser} options={userOptions} />
              )}
              <Collection spec={collection} />
            </div>
          </Tab>
        ))}
      </Tabs>
    </PageSection>
  );
}

/** Lets each collection keep its own row type in one table of specs. */
function spec<T>(collection: CollectionSpec<T>): CollectionSpec<never> {
  return collection as unknown as CollectionSpec<never>;
}

/** A new token's secret: PVE shows it once, at creation, and never again. */
function TokenSecret({ answer }: { readonly answer: { readonly 'full-tokenid': string; readonly value: string } }) {
  return (
    <Alert
      isInline
      variant="warning"
      title={`The secret of ${answer['full-tokenid']}: copy it now, it is not shown again`}
      data-testid="token-secret"
    >
      <ClipboardCopy isReadOnly hoverTip="Copy" clickTip="Copied">
        {answer.value}
      </ClipboardCopy>
    </Alert>
  );
}
