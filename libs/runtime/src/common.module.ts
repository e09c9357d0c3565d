import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock';
import { Lifecycle } from './lifecycle';
import { LateRequestInputGuard, RequestInputGuard, RequestInputRules } from '@app/input-rules';

const INPUT = [RequestInputRules, RequestInputGuard, LateRequestInputGuard];

@Global()
@Module({
  providers: [{ provide: Clock, useClass: SystemClock }, Lifecycle, ...INPUT],
  exports: [Clock, Lifecycle, ...INPUT],
})
export class CommonModule {
  /** `clock`: a replacement time source (tests pass a ManualClock to move time without sleeping). */
  static forRoot(clock?: Clock): DynamicModule {
    return {
      module: CommonModule,
      global: true,
      providers: [
        clock ? { provide: Clock, useValue: clock } : { provide: Clock, useClass: SystemClock },
        Lifecycle,
        ...INPUT,
      ],
      exports: [Clock, Lifecycle, ...INPUT],
    };
  }
}
