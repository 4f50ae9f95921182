import { Button, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';

/** Asks before a destructive action; the action's own name is on the button that does it. */
export function Confirm({
  title,
  children,
  action,
  onConfirm,
  onCancel,
}: {
  readonly title: string;
  readonly children: React.ReactNode;
  readonly action: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}) {
  return (
    <Modal isOpen variant="small" onClose={onCancel} aria-labelledby="confirm-title">
      <ModalHeader title={title} labelId="confirm-title" titleIconVariant="warning" />
      <ModalBody>{children}</ModalBody>
      <ModalFooter>
        <Button variant="danger" onClick={onConfirm}>
          {action}
        </Button>
        <Button variant="link" onClick={onCancel}>
          Cancel
        </Button>
      </ModalFooter>
    </Modal>
  );
}
