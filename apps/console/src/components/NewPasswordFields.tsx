import type { Ref } from 'react';
import type { SignInOptions } from '../api/queries';
import { Field } from './Field';
import { lengthRule } from './password-rules';

/**
 * New password and its repeat, the length rule read out with the first: asked alike by the sign-in with an
 * expired password and by Change password, each form with its own ids.
 */
export function NewPasswordFields({
  ids,
  options,
  next,
  onNext,
  repeat,
  onRepeat,
  refs,
  invalid,
}: {
  ids: { next: string; repeat: string };
  options: SignInOptions;
  next: string;
  onNext: (value: string) => void;
  repeat: string;
  onRepeat: (value: string) => void;
  refs?: { next: Ref<HTMLInputElement>; repeat: Ref<HTMLInputElement> };
  invalid?: { next: boolean; repeat: boolean };
}) {
  return (
    <>
      <Field
        id={ids.next}
        label="New password"
        type="password"
        value={next}
        onChange={onNext}
        inputRef={refs?.next}
        autoComplete="new-password"
        hint={lengthRule(options)}
        invalid={invalid?.next}
      />
      <Field
        id={ids.repeat}
        label="Repeat the new password"
        type="password"
        value={repeat}
        onChange={onRepeat}
        inputRef={refs?.repeat}
        autoComplete="new-password"
        invalid={invalid?.repeat}
      />
    </>
  );
}
