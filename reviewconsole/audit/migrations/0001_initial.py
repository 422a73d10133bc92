import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('intake', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='AuditExport',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('format', models.CharField(choices=[('csv', 'CSV'), ('jsonl', 'JSON lines'), ('fixtures', 'Regression fixtures (JSON lines)')], max_length=10)),
                ('filters', models.JSONField(default=dict)),
                ('head_seq', models.BigIntegerField(default=0, help_text='The export covers events up to this one')),
                ('head_hash', models.CharField(blank=True, max_length=64)),
                ('status', models.CharField(choices=[('STREAMED', 'Streamed to the browser'), ('QUEUED', 'Queued'), ('RUNNING', 'Running'), ('DONE', 'Done'), ('FAILED', 'Failed')], default='QUEUED', max_length=10)),
                ('rows_total', models.PositiveBigIntegerField(default=0)),
                ('rows_done', models.PositiveBigIntegerField(default=0)),
                ('file_name', models.CharField(blank=True, max_length=200)),
                ('error', models.TextField(blank=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('requested_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at'],
            },
        ),
        migrations.CreateModel(
            name='AuditEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('seq', models.BigIntegerField(help_text='Position in the chain, from 1, without gaps', unique=True)),
                ('created_at', models.DateTimeField(db_index=True)),
                ('actor', models.CharField(db_index=True, help_text='"user:<name>", "engine", "client:<name>" ...', max_length=150)),
                ('action', models.CharField(db_index=True, max_length=50)),
                ('object_type', models.CharField(max_length=40)),
                ('object_id', models.CharField(max_length=64)),
                ('payload', models.JSONField(default=dict)),
                ('prev_hash', models.CharField(max_length=64)),
                ('hash', models.CharField(max_length=64, unique=True)),
                ('case', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='intake.case')),
            ],
            options={
                'ordering': ['seq'],
                'indexes': [models.Index(fields=['case', 'seq'], name='audit_event_case'), models.Index(fields=['action', 'created_at'], name='audit_event_action_time')],
            },
        ),
    ]
