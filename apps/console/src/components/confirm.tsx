import type { ReactNode } from 'react';
import { Button, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';

/** A dialog: its title, what it says or asks, the button that acts (named as the action), and Cancel. */
export function Dialog({
  title,
  warning = false,
  children,
  actionButton,
  onCancel,
}: {
  readonly title: string;
  readonly warning?: boolean;
  readonly children: ReactNode;
  readonly actionButton: ReactNode;
  readonly onCancel: () => void;
}) {
  return (
    <Modal isOpen variant="small" onClose={onCancel} aria-labelledby="dialog-title">
      <ModalHeader title={title} labelId="dialog-title" titleIconVariant={warning ? 'warning' : undefined} />
      <ModalBody>{children}</ModalBody>
      <ModalFooter>
        {actionButton}
        <Button variant="link" onClick={onCancel}>
          Cancel
        </Button>
      </ModalFooter>
    </Modal>
  );
}

/** Asks before a destructive action; the action's own name is on the button that does it. */
export function Confirm({
  title,
  children,
  action,
  onConfirm,
  onCancel,
}: {
  readonly title: string;
  readonly children: ReactNode;
  readonly action: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}) {
  return (
    <Dialog
      title={title}
      warning
      onCancel={onCancel}
      actionButton={
        <Button variant="danger" onClick={onConfirm}>
          {action}
        </Button>
      }
    >
      {children}
    </Dialog>
  );
}
