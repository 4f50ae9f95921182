import { initialValues, toParams, type FieldSpec } from './form-values';

const ROLE: FieldSpec = { param: 'roles', label: 'Role', kind: 'select', options: [] };

describe("a form's values", () => {
  it('sends the option a select shows when its options came after the form opened', () => {
    const values = initialValues([ROLE]);
    expect(values).toEqual({ roles: '' });
    const loaded: FieldSpec = {
      ...ROLE,
      options: [
        { value: 'Administrator', label: 'Administrator' },
        { value: 'PVEAuditor', label: 'PVEAuditor' },
      ],
    };
    expect(toParams([loaded], values)).toEqual({ roles: 'Administrator' });
    expect(toParams([loaded], { roles: 'PVEAuditor' })).toEqual({ roles: 'PVEAuditor' });
  });

  it('leaves out empty text, so that the API applies its default, and keeps flags', () => {
    const fields: FieldSpec[] = [
      { param: 'comment', label: 'Comment', kind: 'text' },
      { param: 'newid', label: 'New id', kind: 'text', initial: '102' },
      { param: 'propagate', label: 'Propagate', kind: 'checkbox', initial: true },
    ];
    expect(toParams(fields, initialValues(fields))).toEqual({ comment: undefined, newid: '102', propagate: true });
  });
});
