import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('review', '0007_queue_counts'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='EscalationSkip',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('until', models.DateTimeField()),
                ('escalation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='skips', to='review.escalation')),
                ('reviewer', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('escalation', 'reviewer'), name='one_skip_per_reviewer')],
            },
        ),
        migrations.CreateModel(
            name='SavedQueueFilter',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=60)),
                ('query', models.CharField(help_text="The queue's query string, as its filters form writes it", max_length=1000)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='saved_queue_filters', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['owner', 'name'],
                'constraints': [models.UniqueConstraint(fields=('owner', 'name'), name='saved_queue_filter_name')],
            },
        ),
        migrations.AddIndex(
            model_name='escalation',
            index=models.Index(fields=['status', 'created_at', 'id'], name='escalation_age'),
        ),
    ]
