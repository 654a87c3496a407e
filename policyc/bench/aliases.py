"""Tool aliases for the diverse-tool split (appendix D.4, table 14).

The arithmetic is unchanged; only tool and argument names change, to domain names from
finance, healthcare, DevOps, data science, logistics, IoT, genomics and legal work. The
pools have table 14's sizes and contain its example aliases and those of §D.4's
enumerate_patients -> correlate_signals -> normalize_reading -> accumulate_readings run.
An instance draws one alias per tool from its seed. The aliased policy is the original one
imported through a rename map (`synthesize.aliased_policy_text`), so it is the same policy.

>>> {t: len(p) for t, p in ALIAS_POOLS.items()}["tool_a"]
17
>>> choose_aliases(("tool_b",), 0)["tool_b"]
('cross_reference', {'i': 'primary_id', 'j': 'secondary_id'})
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from policyc.bench.procedure import Renames


def _pool(param: str | tuple[str, ...], entries: str) -> tuple[tuple[str, dict[str, str]], ...]:
    params = (param,) if isinstance(param, str) else param
    out = []
    for line in entries.split():
        name, _, renamed = line.partition(":")
        out.append((name, dict(zip(params, renamed.split(",")))))
    return tuple(out)


ALIAS_POOLS: dict[str, tuple[tuple[str, dict[str, str]], ...]] = {
    "tool_a": _pool("i", """verify_checksum:index lookup_account_tier:account_id score_triage_level:patient_id
        probe_service_health:service_id sample_feature_bucket:feature_id estimate_route_zone:route_id
        read_sensor_channel:sensor_id classify_codon:codon_index rate_clause_risk:clause_id
        fetch_credit_grade:customer_id check_dosage_class:prescription_id get_replica_rank:replica_id
        bucket_cohort:cohort_id assign_dock_slot:shipment_id poll_device_state:device_id
        call_variant_class:locus_id tag_case_priority:case_number"""),
    "tool_a_list": _pool("seed", """list_transaction_ids:batch_seed enumerate_patients:intake_seed
        list_pending_deployments:release_seed sample_dataset_rows:sampling_seed list_shipment_ids:manifest_seed
        scan_sensor_ids:scan_seed list_sequence_reads:run_seed list_case_filings:docket_seed"""),
    "tool_iterations": _pool("seed", """compute_retry_budget:execution_seed count_review_rounds:audit_seed
        plan_followup_visits:care_seed get_rollout_waves:deploy_seed choose_epoch_count:training_seed
        count_delivery_legs:route_seed get_polling_cycles:firmware_seed count_hearing_sessions:court_seed"""),
    "tool_b": _pool(("i", "j"), """cross_reference:primary_id,secondary_id correlate_signals:channel_a,channel_b
        match_ledger_entries:debit_id,credit_id compare_lab_results:sample_id,panel_id
        diff_config_versions:base_version,head_version join_feature_tables:left_key,right_key
        pair_pickup_dropoff:pickup_id,dropoff_id fuse_sensor_readings:sensor_a,sensor_b
        align_sequences:read_id,reference_id compare_contract_terms:contract_id,amendment_id
        reconcile_accounts:account_a,account_b check_drug_interaction:drug_a,drug_b
        correlate_log_streams:stream_a,stream_b link_gene_pathway:gene_id,pathway_id
        match_precedent:case_id,statute_id"""),
    "tool_c": _pool("x", """transform_value:value normalize_reading:reading convert_currency:amount
        adjust_dosage:dose scale_replicas:replica_count standardize_feature:feature_value
        convert_weight_units:weight calibrate_sensor:raw_value translate_codon:codon compute_penalty:base_amount
        apply_interest:principal convert_lab_units:measurement bump_version:build_number rescale_score:score
        estimate_transit_time:distance amplify_signal:signal"""),
    "tool_d": _pool("numbers", """aggregate_metrics:metrics accumulate_readings:readings sum_transactions:amounts
        total_patient_charges:charges merge_build_counts:counts reduce_batch_scores:scores
        total_shipment_weight:weights combine_sensor_totals:totals sum_read_depths:depths tally_damages:claims
        consolidate_balances:balances sum_vital_scores:vitals aggregate_latencies:latencies
        pool_gene_counts:gene_counts total_billable_hours:hours"""),
    "tool_expand": _pool("node", """explore_dependencies:package_id expand_org_chart:employee_id
        list_referrals:provider_id trace_service_calls:service_id expand_feature_graph:feature_id
        list_connecting_routes:hub_id discover_mesh_neighbors:device_id expand_gene_network:gene_id
        cite_related_cases:case_id list_counterparties:entity_id expand_care_pathway:step_id
        list_child_jobs:job_id explore_lineage:table_id list_subsidiaries:company_id
        expand_supply_chain:supplier_id"""),
    "tool_value": _pool("node", """get_node_weight:node_id score_package_risk:package_id
        get_provider_rating:provider_id measure_service_load:service_id rate_feature_importance:feature_id
        get_hub_capacity:hub_id read_device_battery:device_id score_gene_expression:gene_id
        weigh_case_relevance:case_id assess_entity_exposure:entity_id"""),
}

_SALT = {tool: 5 * k for k, tool in enumerate(ALIAS_POOLS)}


def choose_aliases(tools: Iterable[str], seed: int) -> dict[str, tuple[str, dict[str, str]]]:
    """One alias per tool, drawn deterministically from the seed.

    >>> choose_aliases(("tool_a", "tool_d"), 42)
    {'tool_a': ('check_dosage_class', {'i': 'prescription_id'}), 'tool_d': ('combine_sensor_totals', {'numbers': 'totals'})}
    """
    out = {}
    for tool in tools:
        pool = ALIAS_POOLS[tool]
        out[tool] = pool[(seed * 31 + _SALT[tool]) % len(pool)]
    return out


def rename_call(name: str, args: Mapping[str, Any], renames: Renames) -> tuple[str, dict[str, Any]]:
    """A call seen through the aliases.

    >>> rename_call("tool_c", {"x": 5}, {"tool_c": ("normalize_reading", {"x": "reading"})})
    ('normalize_reading', {'reading': 5})
    """
    if name not in renames:
        return name, dict(args)
    alias, arg_map = renames[name]
    return alias, {arg_map.get(k, k): v for k, v in args.items()}


def inverse(renames: Renames) -> dict[str, tuple[str, dict[str, str]]]:
    """The rename map that undoes `renames`.

    >>> inverse({"tool_c": ("normalize_reading", {"x": "reading"})})
    {'normalize_reading': ('tool_c', {'reading': 'x'})}
    """
    return {alias: (tool, {new: old for old, new in args.items()}) for tool, (alias, args) in renames.items()}


def rename_map_text(renames: Renames) -> str:
    """The body of an AgentLTL `rename { ... }` block.

    >>> print(rename_map_text({"tool_b": ("cross_reference", {"i": "primary_id", "j": "secondary_id"})}))
        tool_b -> cross_reference { i -> primary_id, j -> secondary_id },
    """
    lines = []
    for tool, (alias, args) in renames.items():
        inner = ", ".join(f"{old} -> {new}" for old, new in args.items())
        lines.append(f"    {tool} -> {alias} {{ {inner} }},")
    return "\n".join(lines)
