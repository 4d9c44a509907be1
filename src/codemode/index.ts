/**
 * Code mode: AJS as the runtime for programs a model writes against real
 * tools. MCP tools as typed atoms (mcpAtoms), their declarations for a
 * prompt (describeAtoms), a type check of a program against them
 * (transpile's `typecheck`) and its plan before it runs (analyzeProgram).
 */
export { mcpAtoms, listMcpTools, toolRequiresApproval, mcpResultData, type McpAtom, type McpAtomSet, type McpAtomsOptions, type McpClientLike, type McpHttpSpec, type McpSource, type McpStdioSpec, type McpTool } from './mcp.ts'
export { mapToolNames, toIdentifier, type Rename, type RenameReason } from './names.ts'
export { describeAtoms, schemaToTs, SCHEMA_TS_BUDGET, atomList, type AtomsLike, type DescribableAtom, type DescribeOptions } from './describe.ts'
export { analyzeProgram, type AtomPlan, type Bound, type CallSite, type ProgramPlan } from './plan.ts'
export { withApprovals, needsApproval, normalizeDecision, rejectedError, APPROVAL_REJECTED, type ApprovalCall, type ApprovalDecision, type ApprovalPolicy, type WithApprovalsOptions } from './approval.ts'
export { checkPlan, parsePlanPolicy, type PlanPolicy, type PlanReach, type PlanViolation } from './policy.ts'
export { BudgetTokens, BudgetTokenError, MemorySeenTokens, BUDGET_CODES, type BudgetClaims, type BudgetCode, type BudgetTokenOptions, type BudgetUsage, type SeenTokens, type SpentToken } from './budget-token.ts'
export { budgetAtoms, budgetCapability, budgetRunAtom, budgetSettleAtom, budgetTokenAtom, type BudgetCapability, type BudgetRunner } from './budget-atoms.ts'
export { workflowBudgetAtoms, type WorkflowBudgetOptions } from './budget-workflow.ts'
