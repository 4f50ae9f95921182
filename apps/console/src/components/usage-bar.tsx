import { Progress, ProgressMeasureLocation, ProgressVariant } from '@patternfly/react-core';
import { percent } from '../format';

/** A share of a whole, amber from 80 % and red from 95 %, with its figures in words. */
export function UsageBar({
  title,
  used,
  total,
  text,
}: {
  readonly title: string;
  readonly used: number;
  readonly total: number;
  readonly text: string;
}) {
  const value = percent(used, total);
  return (
    <Progress
      title={title}
      value={value}
      label={text}
      measureLocation={ProgressMeasureLocation.outside}
      variant={value >= 95 ? ProgressVariant.danger : value >= 80 ? ProgressVariant.warning : undefined}
      aria-label={`${title}: ${text}`}
    />
  );
}
