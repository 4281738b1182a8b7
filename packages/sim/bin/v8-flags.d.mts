/** The V8 interrupt budget flag that processes running seeds start with (docs/decisions.md D55). */
export declare const INTERRUPT_BUDGET_FLAG: string;
