package pgdb

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// maxStatementLen bounds the db.statement attribute, in bytes.
const maxStatementLen = 1024

const tracerName = "bidradar/pkg/pgdb"

// Tracer is a pgx.QueryTracer that opens one OpenTelemetry client span per
// query. The span carries the SQL text (truncated) but never the arguments,
// which may hold personal data or secrets.
type Tracer struct {
	tracer trace.Tracer
}

var (
	_ pgx.QueryTracer    = (*Tracer)(nil)
	_ pgx.CopyFromTracer = (*Tracer)(nil)
)

// NewTracer returns a Tracer using the global OpenTelemetry tracer provider.
func NewTracer() *Tracer {
	return &Tracer{tracer: otel.Tracer(tracerName)}
}

// TraceQueryStart starts the query span.
func (t *Tracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	attrs := []attribute.KeyValue{
		attribute.String("db.system", "postgresql"),
		attribute.String("db.statement", TruncateStatement(data.SQL)),
	}
	if conn != nil {
		if cfg := conn.Config(); cfg != nil {
			attrs = append(attrs, attribute.String("db.name", cfg.Database))
		}
	}
	ctx, _ = t.tracer.Start(ctx, spanName(data.SQL),
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attrs...))
	return ctx
}

// TraceQueryEnd ends the query span, recording an error if there was one.
func (t *Tracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	markWrite(ctx, data.CommandTag, data.Err)
	span := trace.SpanFromContext(ctx)
	if data.Err != nil {
		span.RecordError(data.Err)
		span.SetStatus(codes.Error, data.Err.Error())
	} else {
		span.SetAttributes(attribute.Int64("db.rows_affected", data.CommandTag.RowsAffected()))
	}
	span.End()
}

// TraceCopyFromStart starts the span of a COPY FROM (bulk ingestion writes
// with COPY; without this its time was missing from the trace).
func (t *Tracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceCopyFromStartData) context.Context {
	ctx, _ = t.tracer.Start(ctx, "COPY",
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("db.system", "postgresql"),
			attribute.String("db.operation", "COPY"),
			attribute.String("db.sql.table", data.TableName.Sanitize()),
			attribute.StringSlice("db.copy.columns", data.ColumnNames),
		))
	return ctx
}

// TraceCopyFromEnd ends the COPY span with the rows copied or the error.
func (t *Tracer) TraceCopyFromEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceCopyFromEndData) {
	markWrite(ctx, data.CommandTag, data.Err)
	span := trace.SpanFromContext(ctx)
	if data.Err != nil {
		span.RecordError(data.Err)
		span.SetStatus(codes.Error, data.Err.Error())
	} else {
		span.SetAttributes(attribute.Int64("db.rows_affected", data.CommandTag.RowsAffected()))
	}
	span.End()
}

// TruncateStatement shortens sql to at most 1024 bytes without splitting a
// UTF-8 character.
func TruncateStatement(sql string) string {
	if len(sql) <= maxStatementLen {
		return sql
	}
	cut := maxStatementLen
	for cut > 0 && !utf8.RuneStart(sql[cut]) {
		cut--
	}
	return sql[:cut] + "…"
}

// spanName is the SQL verb ("SELECT", "INSERT", ...), or "query".
func spanName(sql string) string {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return "db.query"
	}
	verb := strings.ToUpper(f[0])
	if len(verb) > 16 {
		verb = verb[:16]
	}
	return "db." + strings.Trim(verb, "(;")
}
